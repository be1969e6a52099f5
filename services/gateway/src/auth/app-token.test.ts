import { describe, expect, it } from 'vitest';
import { signAppToken, verifyAppToken } from './app-token';

const k1 = { id: 'k1', secret: Buffer.from('a'.repeat(32)) };
const k2 = { id: 'k2', secret: Buffer.from('b'.repeat(32)) };
const claims = { sub: 'app_1', acc: 'acct_1', ver: 3, iat: 1_000, exp: 4_600 };

describe('app tokens', () => {
  it('verify until exp, then expire', () => {
    const token = signAppToken([k1], claims);
    expect(verifyAppToken([k1], token, 4_599_999)).toMatchObject({ ok: true, claims: { sub: 'app_1', ver: 3 } });
    expect(verifyAppToken([k1], token, 4_600_000)).toEqual({ ok: false, reason: 'expired' });
  });

  it('verify with an older key still in the ring (rotation by kid)', () => {
    const token = signAppToken([k1], claims);
    expect(verifyAppToken([k2, k1], token, 2_000_000).ok).toBe(true);
    expect(verifyAppToken([k2], token, 2_000_000)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('reject tampering and garbage', () => {
    const [h, p, s] = signAppToken([k1], claims).split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, acc: 'acct_2' })).toString('base64url');
    expect(verifyAppToken([k1], `${h}.${forged}.${s}`, 2_000_000)).toEqual({ ok: false, reason: 'bad_signature' });
    const none = Buffer.from(JSON.stringify({ alg: 'none', kid: 'k1' })).toString('base64url');
    expect(verifyAppToken([k1], `${none}.${p}.`, 2_000_000)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyAppToken([k1], 'garbage', 2_000_000)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyAppToken([k1], 'a.b.c', 2_000_000)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('verifies a token once per key ring, and still expires it and refuses a changed byte', () => {
    const ring = [k1];
    const token = signAppToken(ring, claims);
    const first = verifyAppToken(ring, token, 2_000_000);
    expect(first).toMatchObject({ ok: true, claims: { sub: 'app_1', acc: 'acct_1' } });
    expect(verifyAppToken(ring, token, 2_000_001)).toEqual(first);
    expect(verifyAppToken(ring, token, 4_600_000)).toEqual({ ok: false, reason: 'expired' });
    const [h, p, s] = token.split('.') as [string, string, string];
    const flipped = `${h}.${p}.${s.startsWith('A') ? 'B' : 'A'}${s.slice(1)}`;
    expect(verifyAppToken(ring, flipped, 2_000_000)).toEqual({ ok: false, reason: 'bad_signature' });
    // Another ring (a key retired) checks the signature itself.
    expect(verifyAppToken([k2], token, 2_000_000)).toEqual({ ok: false, reason: 'bad_signature' });
  });
});
