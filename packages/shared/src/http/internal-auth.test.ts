import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error';
import { signInternal, verifyInternal } from './internal-auth';

const secret = 'an-internal-secret-of-enough-length-000';
const ctx = { accountId: 'acct_1', appId: 'app_1', clockOffsetSeconds: 3600, requestId: 'req_1' };
const now = 1_800_000_000_000;
const headersOf = (record: Record<string, string>) => new Headers(record);

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof ApiError ? `${error.status} ${error.code}` : 'other';
  }
  return 'none';
};

describe('internal signature', () => {
  it('round-trips the caller context', () => {
    const headers = headersOf(signInternal(secret, ctx, 'POST', '/payments', now));
    expect(verifyInternal(secret, headers, 'POST', '/payments', now + 1000)).toEqual(ctx);
  });

  it('401s a missing, wrong, tampered or stale signature', () => {
    const signed = signInternal(secret, ctx, 'POST', '/payments', now);
    expect(codeOf(() => verifyInternal(secret, headersOf({}), 'POST', '/payments', now))).toBe(
      '401 internal_signature_missing',
    );
    expect(
      codeOf(() =>
        verifyInternal('another-secret-of-enough-length-0000000', headersOf(signed), 'POST', '/payments', now),
      ),
    ).toBe('401 internal_signature_invalid');
    expect(
      codeOf(() =>
        verifyInternal(secret, headersOf({ ...signed, 'x-pps-account': 'acct_2' }), 'POST', '/payments', now),
      ),
    ).toBe('401 internal_signature_invalid');
    expect(codeOf(() => verifyInternal(secret, headersOf(signed), 'GET', '/payments', now))).toBe(
      '401 internal_signature_invalid',
    );
    expect(codeOf(() => verifyInternal(secret, headersOf(signed), 'POST', '/payments', now + 61_000))).toBe(
      '401 internal_signature_expired',
    );
  });
});
