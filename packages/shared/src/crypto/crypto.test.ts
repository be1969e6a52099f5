import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blindIndex, FieldCipher, safeEqual, sha256Hex } from './crypto';

const k1 = { id: 'k1', secret: Buffer.alloc(32, 1) };
const k2 = { id: 'k2', secret: Buffer.alloc(32, 2) };

describe('FieldCipher', () => {
  it('round-trips and never stores the plaintext', () => {
    const cipher = new FieldCipher([k1]);
    const stored = cipher.encrypt('123456789');
    expect(stored).not.toContain('123456789');
    expect(stored.startsWith('v1.k1.')).toBe(true);
    expect(cipher.decrypt(stored)).toBe('123456789');
    expect(cipher.encrypt('123456789')).not.toBe(stored);
  });

  it('reads records of an older key after rotation, writes with the new one', () => {
    const old = new FieldCipher([k1]).encrypt('secret');
    const rotated = new FieldCipher([k2, k1]);
    expect(rotated.decrypt(old)).toBe('secret');
    expect(FieldCipher.keyIdOf(rotated.encrypt('x'))).toBe('k2');
  });

  it('rejects tampered ciphertext and unknown keys', () => {
    const cipher = new FieldCipher([k1]);
    const stored = cipher.encrypt('secret');
    const parts = stored.split('.');
    parts[4] = Buffer.from('other').toString('base64url');
    expect(() => cipher.decrypt(parts.join('.'))).toThrow();
    expect(() => new FieldCipher([k2]).decrypt(stored)).toThrow(/k1/);
  });
});

describe('blindIndex and safeEqual', () => {
  it('is deterministic per key and purpose', () => {
    expect(blindIndex('key-a', 'ssn', '123')).toBe(blindIndex('key-a', 'ssn', '123'));
    expect(blindIndex('key-a', 'ssn', '123')).not.toBe(blindIndex('key-b', 'ssn', '123'));
    expect(blindIndex('key-a', 'ssn', '123')).not.toBe(blindIndex('key-a', 'ein', '123'));
  });

  it('compares strings', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('sha256Hex', () => {
  it('is the SHA-256 of the text as UTF-8, in hex: what stored key hashes were made with', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const text of ['', 'sk_test_abc', 'Zoë €', '\u{1F600}', 'x'.repeat(10_000)]) {
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });
});
