import { randomFillSync } from 'node:crypto';

export const idPrefixes = {
  account: 'acct',
  app: 'app',
  merchant: 'mer',
  bankAccount: 'bnk',
  payment: 'pay',
  token: 'tok',
  customer: 'cus',
  checkoutSession: 'cs',
  webhook: 'whk',
  event: 'evt',
  delivery: 'del',
  batch: 'bat',
  achFile: 'ach',
  ledgerPosting: 'lp',
  request: 'req',
} as const;

export type IdKind = keyof typeof idPrefixes;

// Crockford base32: sortable as text, no ambiguous letters.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * `<prefix>_<10 chars of ms time><16 chars of randomness>`: time-ordered (ids sort by creation),
 * and unguessable (80 random bits).
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = randomSlice();
  let rand = '';
  // 10 bytes = 80 bits = 16 base32 characters.
  let buffer = 0;
  let bits = 0;
  for (const byte of random) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      rand += ALPHABET[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  return `${idPrefixes[kind]}_${time}${rand}`;
}

// Random bytes are drawn 4 KiB at a time (one call into the CSPRNG per 409 ids, not one per id) and each
// slice is used once.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function randomSlice(): Buffer {
  if (poolOffset + 10 > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 10;
  return pool.subarray(poolOffset - 10, poolOffset);
}

const ID_BODY = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `value` has the form of an id of that kind (says nothing about existence). */
export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${idPrefixes[kind]}_`;
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}
