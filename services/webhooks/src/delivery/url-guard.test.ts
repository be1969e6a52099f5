import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  isPrivateAddress,
  PRIVATE_TARGET,
  refusingPrivateTargets,
  webhookTargetProblem,
  webhookUrlProblem,
} from './url-guard';

describe('webhook URL guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not-an-ip',
  ])('refuses %s', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(['8.8.8.8', '172.32.0.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => expect(isPrivateAddress(address)).toBe(false),
  );

  it('takes http and https only, with a host and no credentials', () => {
    expect(webhookUrlProblem('https://example.com/hooks')).toBeNull();
    expect(webhookUrlProblem('http://example.com:8080/x?y=1')).toBeNull();
    expect(webhookUrlProblem('ftp://example.com/')).toContain('http or https');
    expect(webhookUrlProblem('file:///etc/passwd')).toContain('http or https');
    expect(webhookUrlProblem('not a url')).toContain('absolute');
    expect(webhookUrlProblem('https://user:pass@example.com/')).toContain('credentials');
  });

  it('checks the resolved addresses unless private targets are allowed', async () => {
    expect(await webhookTargetProblem('http://127.0.0.1:9/x', { allowPrivate: false })).toContain('127.0.0.1');
    expect(await webhookTargetProblem('http://localhost:9/x', { allowPrivate: false })).toMatch(/private|resolve/);
    expect(await webhookTargetProblem('http://[::1]:9/x', { allowPrivate: false })).toContain('::1');
    expect(await webhookTargetProblem('http://127.0.0.1:9/x', { allowPrivate: true })).toBeNull();
    expect(await webhookTargetProblem('ftp://127.0.0.1/x', { allowPrivate: true })).toContain('http or https');
  });

  describe('the lookup a connection makes (refusingPrivateTargets)', () => {
    /** A resolver that answers `addresses` for every name, as DNS under someone else's control might. */
    const answering =
      (...addresses: string[]) =>
      (_host: string, _options: unknown, callback: (error: null, found: LookupAddress[]) => void) =>
        callback(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        );
    const look = (lookup: ReturnType<typeof refusingPrivateTargets>, options: { all?: boolean }) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
        lookup('hooks.example.com', options, (error, address, family) => resolve({ error, address, family })),
      );

    it('passes public addresses on, in the form asked for', async () => {
      const lookup = refusingPrivateTargets(answering('93.184.216.34', '2606:4700:4700::1111'));
      expect(await look(lookup, {})).toEqual({ error: null, address: '93.184.216.34', family: 4 });
      expect((await look(lookup, { all: true })).address).toEqual([
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700:4700::1111', family: 6 },
      ]);
    });

    it('refuses a name with any private address among its answers', async () => {
      for (const answers of [['127.0.0.1'], ['93.184.216.34', '10.0.0.7'], ['::ffff:169.254.169.254']]) {
        const { error } = await look(refusingPrivateTargets(answering(...answers)), {});
        expect(error?.code).toBe(PRIVATE_TARGET);
        expect(error?.message).toBe(
          `url resolves to a private, link-local or loopback address (${answers.find(isPrivateAddress)})`,
        );
      }
    });

    it('passes a failed lookup on as it is, and refuses localhost with the system resolver', async () => {
      const failing = refusingPrivateTargets((_host, _options, callback) =>
        callback(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' }), []),
      );
      expect((await look(failing, {})).error?.code).toBe('ENOTFOUND');
      const { error } = await new Promise<{ error: NodeJS.ErrnoException | null }>((resolve) =>
        refusingPrivateTargets()('localhost', {}, (error) => resolve({ error })),
      );
      expect(error?.code).toBe(PRIVATE_TARGET);
    });
  });
});
