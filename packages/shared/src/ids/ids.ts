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
  balanceTransaction: 'txn',
  payout: 'po',
  dispute: 'dp',
  request: 'req',
} as const;

export type IdKind = keyof typeof idPrefixes;

// Crockford base32: sortable as text, no ambiguous letters.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * `<prefix>_<10 chars of ms time><16 chars of randomness>`: time-ordered (ids sort by creation), and unguessable.
 * Of the 80 bits after the time, the first 20 count up within a millisecond in this process (from a random start),
 * the other 60 are random: ids made in the same millisecond still sort in the order they were made, which listings
 * ordered by (createdAt, id) rely on, and 60 random bits leave nothing to guess.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  if (now === sequence.time) sequence.count = (sequence.count + 1) % COUNTER_RANGE;
  else Object.assign(sequence, { time: now, count: Math.floor(Math.random() * (COUNTER_RANGE / 2)) });
  return `${idPrefixes[kind]}_${base32(now, 10)}${base32(sequence.count, 4)}${randomChars()}`;
}

/**
 * A text that sorts after every id of `kind` made before `at` and before every one made from `at` on (the prefix and
 * the time part alone): a range of ids by time, for a scan along a primary key.
 */
export const idTimeBound = (kind: IdKind, at: Date): string => `${idPrefixes[kind]}_${base32(at.getTime(), 10)}`;

const COUNTER_RANGE = 2 ** 20;
const sequence = { time: -1, count: 0 };

/** `value` as `length` base32 characters, most significant first. */
function base32(value: number, length: number): string {
  let text = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    text = ALPHABET[rest % 32] + text;
    rest = Math.floor(rest / 32);
  }
  return text;
}

/** 12 base32 characters (60 bits) from the random pool. */
function randomChars(): string {
  let text = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of randomSlice()) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && text.length < 12) {
      text += ALPHABET[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  return text;
}

// Random bytes are drawn 4 KiB at a time (one call into the CSPRNG per 512 ids, not one per id) and each
// slice is used once.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function randomSlice(): Buffer {
  if (poolOffset + 8 > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 8;
  return pool.subarray(poolOffset - 8, poolOffset);
}

const ID_BODY = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `value` has the form of an id of that kind (says nothing about existence). */
export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${idPrefixes[kind]}_`;
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}
