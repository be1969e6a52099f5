import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

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

/** Whether an IP address is one a webhook must not reach in production (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

/** What is wrong with a webhook URL's form (http or https, a host, no credentials), or null. */
export function webhookUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must use http or https';
  if (!url.hostname) return 'url must name a host';
  if (url.username || url.password) return 'url must not carry credentials';
  return null;
}

/**
 * Resolves a webhook URL's host and refuses private, link-local and loopback targets unless `allowPrivate`.
 * Called on create and again before every delivery, so a DNS change cannot point a delivery inward. Returns
 * the problem, or null when the target may be called.
 */
export async function webhookTargetProblem(value: string, options: { allowPrivate: boolean }): Promise<string | null> {
  const form = webhookUrlProblem(value);
  if (form || options.allowPrivate) return form;
  const host = new URL(value).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    return `url host ${host} does not resolve`;
  }
  const inward = addresses.find(isPrivateAddress);
  return inward ? `url resolves to a private, link-local or loopback address (${inward})` : null;
}
