import { describe, expect, it } from 'vitest';
import { isPrivateAddress, webhookTargetProblem, webhookUrlProblem } from './url-guard';

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
});
