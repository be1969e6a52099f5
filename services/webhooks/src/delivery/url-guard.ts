import { type LookupAddress, type LookupAllOptions, lookup as lookupCallback } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { webhookUrlProblem } from '@pps/shared/contract';

/** The form check is the contract's (a request's validation); the targets' checks are the deliveries'. */
export { webhookUrlProblem };

/** Loopback, private, link-local, CGNAT, unspecified, multicast and documentation ranges (IPv4 and IPv6). */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** What is wrong with a target at this private address. */
export const privateTargetProblem = (address: string) =>
  `url resolves to a private, link-local or loopback address (${address})`;

/** Whether an IP address is one a webhook must not reach in production (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

/** A URL's host as an address or a name: an IPv6 address without its brackets. */
export const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');

/**
 * Resolves a webhook URL's host and refuses private, link-local and loopback targets unless `allowPrivate`: the
 * check of a URL when an endpoint is made or changed, so the caller hears at once. Deliveries check where they
 * connect instead (`refusingPrivateTargets`). Returns the problem, or null when the target may be called.
 */
export async function webhookTargetProblem(value: string, options: { allowPrivate: boolean }): Promise<string | null> {
  const form = webhookUrlProblem(value);
  if (form || options.allowPrivate) return form;
  const host = hostOf(value);
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    return `url host ${host} does not resolve`;
  }
  const inward = addresses.find(isPrivateAddress);
  return inward ? privateTargetProblem(inward) : null;
}

/** The `code` of the error a connection to a private target fails with (`refusingPrivateTargets`). */
export const PRIVATE_TARGET = 'EPRIVATETARGET';

type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for `net.connect` (an undici Agent's `connect` option) that fails with PRIVATE_TARGET when a host
 * name resolves to any private, link-local or loopback address. The addresses checked are the ones the connection
 * is then made to, so a name that resolves publicly when checked and privately a moment later (DNS rebinding) is
 * refused as well. A URL whose host is an IP address is never looked up: check it with `isPrivateAddress`.
 */
export function refusingPrivateTargets(resolve: Resolver = lookupCallback): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const inward = addresses.find((entry) => isPrivateAddress(entry.address));
      if (inward) {
        return callback(Object.assign(new Error(privateTargetProblem(inward.address)), { code: PRIVATE_TARGET }), []);
      }
      const [first] = addresses;
      if (options.all) return callback(null, addresses);
      if (!first) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
}

/** A connection refused because its target is private: the error, or undefined when it is something else. */
export function privateTargetError(error: unknown): Error | undefined {
  for (let cause = error; cause instanceof Error; cause = (cause as Error & { cause?: unknown }).cause) {
    if ((cause as NodeJS.ErrnoException).code === PRIVATE_TARGET) return cause;
  }
  return undefined;
}
