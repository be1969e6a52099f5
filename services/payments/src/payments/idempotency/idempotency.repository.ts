import type { DbOrTx, Tx } from '@pps/shared/db';
import { jsonArray, mapSent, type Part, rowMapper, type Sent, schema, send, tableCodec, texts } from '@pps/shared/db';
import { and, eq, lt } from 'drizzle-orm';
import { z } from 'zod';

const { idempotencyKeys } = schema;

export type IdempotencyKeyRef = { accountId: string; requestId: string };
export type StoredResponse = { status: number; body: Record<string, unknown> };
/** The first event of the payment a key made (its type, and the resource it carries), when no answer is stored. */
export type FirstEvent = { type: string; data: Record<string, unknown> };

const DAY_MS = 86_400_000;

// A held key is read one way, whether the claim found it or a later read does: the same columns, one mapper.
const heldKey = tableCodec(idempotencyKeys).pick([
  'requestHash',
  'responseStatus',
  'responseBody',
  'createdAt',
  'paymentId',
]);
export type KeyRow = ReturnType<typeof heldKey.read> & { firstEvent: FirstEvent | null };

/**
 * What a held key is read with: its columns (`held`), and the first event of its payment when it stores no answer
 * (a new payment's 201 is that event's resource, not stored twice: `answerOf`). An index look-up, one per key.
 */
export const HELD_KEY_COLUMNS = `${heldKey.columns
  .split(', ')
  .map((column) => `held.${column}`)
  .join(', ')}, first_event.type as first_event_type, first_event.payload -> 'data' as first_event_data`;
export const FIRST_EVENT_JOIN = `left join events as first_event on held.response_status is null
  and first_event.resource_id = held.payment_id and first_event.sequence = 1`;

/** A held key from a raw row read with `HELD_KEY_COLUMNS` (its other columns are left out). */
export function keyRowOf(row: Record<string, unknown>): KeyRow {
  const data = row.first_event_data as Record<string, unknown> | null;
  return {
    ...heldKey.read(row),
    firstEvent: data ? { type: String(row.first_event_type), data } : null,
  };
}

const FIND_KEY = `select ${HELD_KEY_COLUMNS} from idempotency_keys as held ${FIRST_EVENT_JOIN}
  where held.account_id = $1 and held.request_id = $2`;

/** The key's holder, read afresh (one the claim's snapshot could not see); sent at once. */
export function findIdempotencyKey(db: DbOrTx, key: IdempotencyKeyRef): Sent<KeyRow | undefined> {
  return mapSent(send(db, FIND_KEY, [key.accountId, key.requestId]), ([row]) => row && keyRowOf(row));
}

const CLAIM = `
  with claim as (
    insert into idempotency_keys (account_id, request_id, request_hash, created_at)
    values ($1, $2, $3, $4)
    on conflict do nothing
    returning 1)
  select exists (select 1 from claim) as claimed, ${HELD_KEY_COLUMNS}
  from (select 1) as one
  left join idempotency_keys as held on held.account_id = $1 and held.request_id = $2
  ${FIRST_EVENT_JOIN}`;

export type Claim = { claimed: true } | { claimed: false; held: KeyRow | undefined };

const claimOutcome = rowMapper({ claimed: z.boolean() });

/**
 * Claims the key, or reads who holds it, in one statement, sent at once (statements sent after it share its round
 * trip). `insert … on conflict do nothing` waits for a concurrent claim of the same key until that transaction
 * ends: committed, this claims nothing; rolled back, this claims it. The holder's row comes back when the
 * statement's snapshot can see it; a holder that committed while this statement waited is not visible to it
 * (`held` undefined), and the caller reads it afresh.
 */
export function claimIdempotencyKey(tx: Tx, key: IdempotencyKeyRef & { requestHash: string; now: Date }): Sent<Claim> {
  const claim = send(tx, CLAIM, [key.accountId, key.requestId, key.requestHash, key.now.toISOString()]);
  return mapSent(claim, ([row]): Claim => {
    if (row && claimOutcome(row).claimed) return { claimed: true };
    // The holder's columns come from a left join: all null when the snapshot has no holder.
    if (row?.request_hash == null) return { claimed: false, held: undefined };
    return { claimed: false, held: keyRowOf(row) };
  });
}

const ANSWER_KEYS = `update idempotency_keys
  set response_status = a.status::int, response_body = a.body, payment_id = a.payment_id
  from (select * from unnest($1::text[], $2::text[], $3::text[], $4::text[])
      with ordinality as a(account_id, request_id, status, payment_id, n)
    join jsonb_array_elements($5::text::jsonb) with ordinality as b(body, n) using (n)) as a
  where idempotency_keys.account_id = a.account_id and idempotency_keys.request_id = a.request_id`;

/**
 * Fills the responses of keys claimed in the same transaction, naming the records they made: a write to send with
 * the operations' own, one however many keys (one for `runIdempotent`, a batch's for a group commit).
 */
export function answersPart(
  answers: { key: IdempotencyKeyRef; response: StoredResponse & { paymentId: string | null } }[],
): Part {
  return {
    text: ANSWER_KEYS,
    params: [
      texts(answers.map(({ key }) => key.accountId)),
      texts(answers.map(({ key }) => key.requestId)),
      texts(answers.map(({ response }) => response.status)),
      texts(answers.map(({ response }) => response.paymentId)),
      jsonArray(answers.map(({ response }) => response.body)),
    ],
  };
}

const RELEASE_KEYS = `delete from idempotency_keys using unnest($1::text[], $2::text[]) as k(account_id, request_id)
  where idempotency_keys.account_id = k.account_id and idempotency_keys.request_id = k.request_id`;

/**
 * Keys claimed in this transaction by requests that were refused after all, released as one write: a refusal
 * stores nothing, as when its own transaction rolls back.
 */
export function releaseKeysPart(keys: IdempotencyKeyRef[]): Part {
  return {
    text: RELEASE_KEYS,
    params: [texts(keys.map((key) => key.accountId)), texts(keys.map((key) => key.requestId))],
  };
}

const ANSWER_IN_FLIGHT = `update idempotency_keys set response_status = a.status::int, response_body = a.body
  from (select * from unnest($1::text[], $2::text[]) with ordinality as a(payment_id, status, n)
    join jsonb_array_elements($3::text::jsonb) with ordinality as b(body, n) using (n)) as a
  where idempotency_keys.payment_id = a.payment_id and idempotency_keys.response_status is null`;

/**
 * Stores refusals on the keys of payments in flight, those that have one, as one write however many (phase 3,
 * group-committed, and recovery: the key is found by the payment it names). An approval stores nothing: its 201 is
 * the payment's first event's resource (`answerOf`).
 */
export function answersInFlightPart(answers: { paymentId: string; response: StoredResponse }[]): Part {
  return {
    text: ANSWER_IN_FLIGHT,
    params: [
      texts(answers.map((answer) => answer.paymentId)),
      texts(answers.map((answer) => answer.response.status)),
      jsonArray(answers.map((answer) => answer.response.body)),
    ],
  };
}

/** Removes one key if it is still the expired row that was read (a fresh claim made meanwhile stays). */
export async function deleteIdempotencyKeyCreatedAt(db: DbOrTx, key: IdempotencyKeyRef, createdAt: Date) {
  await db
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.accountId, key.accountId),
        eq(idempotencyKeys.requestId, key.requestId),
        eq(idempotencyKeys.createdAt, createdAt),
      ),
    );
}

export const idempotencyCutoff = (now: Date, ttlDays: number) => new Date(now.getTime() - ttlDays * DAY_MS);

/** The scheduled cleanup: removes keys older than `ttlDays` (real time). Returns how many went. */
export async function deleteExpiredIdempotencyKeys(db: DbOrTx, now: Date, ttlDays: number): Promise<number> {
  const removed = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, idempotencyCutoff(now, ttlDays)))
    .returning({ requestId: idempotencyKeys.requestId });
  return removed.length;
}
