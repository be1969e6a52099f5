import {
  Batcher,
  type BatcherOptions,
  type Db,
  mapSent,
  type Part,
  pipelinedTransaction,
  type Sent,
  send,
  sendTogether,
  type Tx,
  texts,
} from '@pps/shared/db';
import {
  FIRST_EVENT_JOIN,
  HELD_KEY_COLUMNS,
  type IdempotencyKeyRef,
  idempotencyCutoff,
  type KeyRow,
  keyRowOf,
} from './idempotency.repository';

/** A key to claim for a new record: the request's fingerprint, its time (real time) and how long keys live. */
export type KeyClaim = IdempotencyKeyRef & { requestHash: string; now: Date; ttlDays: number };

/**
 * Phase 1 of a new payment (docs/design.md, The payment write path): its key, when the request gave one, and the
 * record to claim `processing` (`payment_claims`), which goes in only if the key is claimed (or there is none).
 */
export type ClaimItem<R> = { key: KeyClaim | undefined; recordId: string; record: R };

/**
 * What became of a claim, once committed: the key is this request's and its record is in; or another request
 * holds the key (a replay, a reused key or one in flight: the caller judges `held`); or the holder had expired and
 * was removed, or went while it was read, and the claim must be submitted again.
 */
export type ClaimResult = { claimed: true } | { claimed: false; held: KeyRow } | { claimed: false; retry: true };

const CLAIM_MANY = `
  insert into idempotency_keys (account_id, request_id, request_hash, created_at, payment_id)
  select account_id, request_id, request_hash, created_at::timestamptz, payment_id
  from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
    as claim(account_id, request_id, request_hash, created_at, payment_id)
  order by account_id, request_id
  on conflict do nothing
  returning account_id, request_id`;

const HOLDERS = `
  select held.account_id, held.request_id, ${HELD_KEY_COLUMNS} from idempotency_keys as held
  join unnest($1::text[], $2::text[]) as wanted(account_id, request_id) using (account_id, request_id)
  ${FIRST_EVENT_JOIN}`;

const REMOVE_EXPIRED = 'delete from idempotency_keys where account_id = $1 and request_id = $2 and created_at = $3';

/** A key as one string, to look claims and holders up by. */
export const keyOf = (key: IdempotencyKeyRef) => `${key.accountId}\u0000${key.requestId}`;

/** Removes an expired holder if it is still the row read (a fresh claim made meanwhile stays): a write to send with others. */
export const removeExpiredPart = (key: IdempotencyKeyRef, held: KeyRow): Part => ({
  text: REMOVE_EXPIRED,
  params: [key.accountId, key.requestId, held.createdAt.toISOString()],
});

/**
 * Claims the keys in one statement, in key order (two batches claiming the same keys wait for each other in one
 * order, never in a circle), each naming its record (recovery's way back). `on conflict do nothing` waits for a
 * concurrent claim of the same key until that transaction ends. Returns the keys claimed (`keyOf`); sent at once.
 * A record not made yet (an operation on a payment) is named by the stored answer.
 */
export function claimKeys(tx: Tx, claims: { key: KeyClaim; recordId: string | null }[]): Sent<Set<string>> {
  const claimed = send(tx, CLAIM_MANY, [
    texts(claims.map(({ key }) => key.accountId)),
    texts(claims.map(({ key }) => key.requestId)),
    texts(claims.map(({ key }) => key.requestHash)),
    texts(claims.map(({ key }) => key.now.toISOString())),
    texts(claims.map(({ recordId }) => recordId)),
  ]);
  return mapSent(
    claimed,
    (rows) =>
      new Set(rows.map((row) => keyOf({ accountId: String(row.account_id), requestId: String(row.request_id) }))),
  );
}

/**
 * The holders of the keys, read by a statement after the claim: it sees every holder committed while the claim
 * waited, and this batch's own claims. Sent at once.
 */
export function findHolders(tx: Tx, keys: IdempotencyKeyRef[]): Sent<Map<string, KeyRow>> {
  const held = send(tx, HOLDERS, [texts(keys.map((key) => key.accountId)), texts(keys.map((key) => key.requestId))]);
  return mapSent(
    held,
    (rows) =>
      new Map(
        rows.map((row) => [
          keyOf({ accountId: String(row.account_id), requestId: String(row.request_id) }),
          keyRowOf(row),
        ]),
      ),
  );
}

/**
 * Phase 1 group-committed: concurrent new payments' keys and records claimed by one transaction, one statement
 * per table (`Batcher`). `insertMany` writes the claimed records (and those without a key) as one
 * statement. Two requests with one key in a batch: the first claims it, the second finds it in flight.
 */
export type Claims<R> = Batcher<ClaimItem<R>, ClaimResult>;

export function claimsCommitter<R>(db: Db, insertMany: (records: R[]) => Part, options: BatcherOptions): Claims<R> {
  return new Batcher<ClaimItem<R>, ClaimResult>(
    (items) =>
      pipelinedTransaction(db, async (tx) => {
        const keys = items.flatMap((item) => (item.key ? [item.key] : []));
        const claimed =
          keys.length > 0
            ? await claimKeys(
                tx,
                items.flatMap((item) => (item.key ? [{ key: item.key, recordId: item.recordId }] : [])),
              )
            : new Set<string>();
        // Holders are read only for the keys the claim did not take (another request's, or given twice in this
        // batch): most batches claim every key, and read none.
        const unclaimed = new Set(claimed);
        const toRead = keys.filter((key) => !unclaimed.delete(keyOf(key)));
        const holders = toRead.length > 0 ? await findHolders(tx, toRead) : new Map<string, KeyRow>();
        const inserted: R[] = [];
        const removed: Part[] = [];
        const results = items.map((item): ClaimResult => {
          if (!item.key) {
            inserted.push(item.record);
            return { claimed: true };
          }
          const id = keyOf(item.key);
          if (claimed.delete(id)) {
            inserted.push(item.record);
            return { claimed: true };
          }
          const held = holders.get(id);
          if (held && held.createdAt >= idempotencyCutoff(item.key.now, item.key.ttlDays)) {
            return { claimed: false, held };
          }
          // Expired: removed if still the row read (a fresh claim made meanwhile stays), then claimed afresh.
          if (held) removed.push(removeExpiredPart(item.key, held));
          return { claimed: false, retry: true };
        });
        const writes = [...(inserted.length > 0 ? [insertMany(inserted)] : []), ...removed];
        return { result: results, pending: writes.length > 0 ? [sendTogether(tx, writes)] : [] };
      }),
    options,
  );
}
