import * as crypto from 'node:crypto';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Node's one-shot digest (20.12 and later; the engines field asks for 20.19): half the time of `createHash` for a
 * short text (0.6 µs against 1.2), and every request hashes its API key and a payment its fingerprint. Not in the
 * types this checkout has.
 */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export const sha256Hex = (value: string) =>
  oneShotHash ? oneShotHash('sha256', value, 'hex') : createHash('sha256').update(value).digest('hex');

export const hmacSha256 = (key: string | Buffer, value: string) => createHmac('sha256', key).update(value).digest();

/** Constant-time comparison of two strings (false on length mismatch, without early exit on content). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** A random secret of `bytes` bytes, base64url, with a readable prefix (`sk_test_`, `ak_`, `whsec_`). */
export const randomSecret = (prefix: string, bytes = 32) => `${prefix}${randomBytes(bytes).toString('base64url')}`;

export type KeyRing = { id: string; secret: Buffer }[];

/**
 * Field encryption: AES-256-GCM. The stored text is `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts),
 * so a record written under an old key still decrypts after a new key becomes active (the first of the ring).
 */
export class FieldCipher {
  private readonly keys: Map<string, Buffer>;
  private readonly active: { id: string; key: Buffer };

  constructor(ring: KeyRing) {
    if (ring.length === 0) throw new Error('FieldCipher needs at least one key');
    // Any secret length is stretched to the 32 bytes AES-256 needs.
    this.keys = new Map(ring.map(({ id, secret }) => [id, createHash('sha256').update(secret).digest()]));
    const first = ring[0]!;
    this.active = { id: first.id, key: this.keys.get(first.id)! };
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.active.key, iv);
    cipher.setAAD(Buffer.from(this.active.id));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return ['v1', this.active.id, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join(
      '.',
    );
  }

  decrypt(stored: string): string {
    const [version, keyId, iv, tag, body] = stored.split('.');
    if (version !== 'v1' || !keyId || !iv || !tag || body === undefined) throw new Error('unreadable ciphertext');
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`no decryption key with id ${keyId}`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(keyId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** The key id a stored value was written under (for re-encryption jobs and tests). */
  static keyIdOf(stored: string): string | undefined {
    return stored.split('.')[1];
  }
}

/**
 * A keyed "blind index": equal inputs give equal indexes, so uniqueness can be enforced on it,
 * yet the value can't be recovered or brute-forced without the key.
 */
export const blindIndex = (key: string, purpose: string, value: string) =>
  hmacSha256(key, `${purpose}:${value}`).toString('base64url');

export const maskLast4 = (last4: string) => `xxxx${last4}`;
