import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/**
 * Idempotency keys of `POST /payments` and `POST /payouts` (`data.requestId`), scoped to the account (one key
 * space for both; `paymentId` is null for a payout, whose answer holds it). The row is inserted first in
 * the payment's transaction, so a concurrent duplicate blocks on the primary key until the first commits. A payout's
 * (and a refund's) response columns are filled before that commit; a new card or ACH payment's key commits first
 * with its `paymentId` and no response (in flight: a replay answers 409 `idempotency_key_in_use`). Its outcome
 * stores a refusal's response (402, 422) on the key; an approval's 201 is not stored twice: it is the resource of
 * the payment's first event, which the key's readers join (docs/design.md, Idempotency and concurrency).
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
    /** A new payment's key, by the payment: how its outcome (phase 3, or recovery's) stores a refusal on it. */
    index('idempotency_keys_payment_idx').on(t.paymentId).where(sql`payment_id is not null`),
  ],
);

export type IdempotencyKey = typeof idempotencyKeys.$inferSelect;
