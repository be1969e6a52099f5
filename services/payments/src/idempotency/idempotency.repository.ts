import type { DbOrTx, Tx } from '@pps/shared/db';
import { schema } from '@pps/shared/db';
import { and, eq, lt, sql } from 'drizzle-orm';

const { idempotencyKeys } = schema;
type IdempotencyKey = typeof idempotencyKeys.$inferSelect;

export type IdempotencyKeyRef = { accountId: string; requestId: string };
export type StoredResponse = { status: number; body: Record<string, unknown> };

const DAY_MS = 86_400_000;

export async function findIdempotencyKey(db: DbOrTx, key: IdempotencyKeyRef) {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.accountId, key.accountId), eq(idempotencyKeys.requestId, key.requestId)));
  return row;
}

export type KeyRow = Pick<IdempotencyKey, 'requestHash' | 'responseStatus' | 'responseBody' | 'createdAt'>;

/**
 * Claims the key, or reads who holds it, in one statement. `insert … on conflict do nothing` waits for a concurrent
 * claim of the same key until that transaction ends: committed, this claims nothing; rolled back, this claims it.
 * The holder's row comes back when the statement's snapshot can see it; a holder that committed while this statement
 * waited is not visible to it (`held` undefined), and the caller reads it afresh.
 */
export async function claimIdempotencyKey(
  tx: Tx,
  key: IdempotencyKeyRef & { requestHash: string; now: Date },
): Promise<{ claimed: true } | { claimed: false; held: KeyRow | undefined }> {
  const [row] = await tx.execute<{
    claimed: boolean;
    request_hash: string | null;
    response_status: number | null;
    response_body: Record<string, unknown> | null;
    created_at: string | null;
  }>(sql`
    with claim as (
      insert into ${idempotencyKeys} (account_id, request_id, request_hash, created_at)
      values (${key.accountId}, ${key.requestId}, ${key.requestHash}, ${key.now.toISOString()})
      on conflict do nothing
      returning 1)
    select exists (select 1 from claim) as claimed, held.request_hash, held.response_status, held.response_body,
      held.created_at
    from (select 1) as one
    left join ${idempotencyKeys} as held on held.account_id = ${key.accountId} and held.request_id = ${key.requestId}`);
  if (row?.claimed) return { claimed: true };
  const held =
    row?.request_hash == null
      ? undefined
      : {
          requestHash: row.request_hash,
          responseStatus: row.response_status,
          responseBody: row.response_body,
          createdAt: new Date(row.created_at as string),
        };
  return { claimed: false, held };
}

/** Fills the response of a claimed key, in the same transaction as the claim. */
export async function recordIdempotentResponse(
  tx: Tx,
  key: IdempotencyKeyRef,
  response: StoredResponse & { paymentId: string | null },
) {
  await tx
    .update(idempotencyKeys)
    .set({ responseStatus: response.status, responseBody: response.body, paymentId: response.paymentId })
    .where(and(eq(idempotencyKeys.accountId, key.accountId), eq(idempotencyKeys.requestId, key.requestId)));
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
