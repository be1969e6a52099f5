import type { DbOrTx, Tx } from '@pps/shared/db';
import { schema } from '@pps/shared/db';
import { and, eq, lt } from 'drizzle-orm';

const { idempotencyKeys } = schema;

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

/**
 * A plain insert, on purpose: a concurrent call holding the same key makes this wait on the primary key until it
 * commits (then this fails with 23505 and the caller replays) or rolls back (then this goes on).
 */
export async function claimIdempotencyKey(tx: Tx, key: IdempotencyKeyRef & { requestHash: string; now: Date }) {
  await tx.insert(idempotencyKeys).values({
    accountId: key.accountId,
    requestId: key.requestId,
    requestHash: key.requestHash,
    createdAt: key.now,
  });
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
