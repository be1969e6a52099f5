import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/**
 * Idempotency keys of `POST /payments` and `POST /payouts` (`data.requestId`), scoped to the account (one key
 * space for both; `paymentId` is null for a payout, whose answer holds it). The row is inserted first in
 * the payment's transaction, so a concurrent duplicate blocks on the primary key until the first commits. A payout's
 * (and a refund's) response columns are filled before that commit; a new card or ACH payment's key commits first
 * with its `paymentId` and no response (in flight: a replay answers 409 `idempotency_key_in_use`), and gets its
 * response with the payment's outcome (docs/design.md, Idempotency and concurrency).
 * `createdAt` is real time: keys expire after IDEMPOTENCY_TTL_DAYS whatever the sandbox clock says.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    accountId: text('account_id').notNull(),
    requestId: text('request_id').notNull(),
    /** sha256 of the canonical JSON of `data` without `requestId`. */
    requestHash: text('request_hash').notNull(),
    responseStatus: integer('response_status'),
    responseBody: jsonb('response_body').$type<Record<string, unknown>>(),
    paymentId: text('payment_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'idempotency_keys_pk', columns: [t.accountId, t.requestId] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
    /** A payment's key while the payment is in flight (no answer yet): how recovery stores the answer it records. */
    index('idempotency_keys_in_flight_idx').on(t.paymentId).where(sql`response_status is null`),
  ],
);

export type IdempotencyKey = typeof idempotencyKeys.$inferSelect;
