import { bigint, index, integer, jsonb, pgSequence, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { timestamps, ts } from './columns';
import { merchants } from './merchants';

const cents = (name: string) => bigint(name, { mode: 'number' }).notNull().default(0);

/**
 * What settlement moved for one merchant on one settlement day (the Pacific date the records settled, their
 * `settledAt` by the account's clock), accumulated by every pass of that day. Owned by the settlement service. `net` is what became available to the merchant
 * (captures' net and split shares, less refunds); `gross` and `fees` are those of the merchant's own captures.
 */
export const settlementBatches = pgTable(
  'settlement_batches',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    settlementDate: text('settlement_date').notNull(),
    count: integer('count').notNull().default(0),
    gross: cents('gross'),
    fees: cents('fees'),
    refunds: cents('refunds'),
    net: cents('net'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('settlement_batches_merchant_day_uq').on(t.merchantId, t.settlementDate),
    index('settlement_batches_account_day_idx').on(t.accountId, t.settlementDate),
  ],
);

/**
 * The 7-digit sequence of every NACHA entry's trace number (after the ODFI's 8 digits), across all files: a bank's
 * return names the entry by its trace number, so no two entries a return could still name may share one. It cycles
 * after 9,999,999: a return names an entry within days of its file, and ten million entries later that entry is
 * long past being returned, so reusing its number is safe.
 */
export const achTraceSequence = pgSequence('ach_trace_sequence', {
  startWith: 1,
  minValue: 1,
  maxValue: 9_999_999,
  increment: 1,
  cycle: true,
  cache: 1,
});

/**
 * The NACHA file of the ACH entries one settlement batch settled (debits and refund credits), kept for ops.
 * The content holds full account numbers, so it is kept encrypted and only served to the operator
 * (GET /admin/ach-files/{id}).
 */
export const achFiles = pgTable(
  'ach_files',
  {
    id: text('id').primaryKey(),
    batchCount: integer('batch_count').notNull(),
    entryCount: integer('entry_count').notNull(),
    entryHash: text('entry_hash').notNull(),
    totalDebit: cents('total_debit'),
    totalCredit: cents('total_credit'),
    paymentIds: jsonb('payment_ids').$type<string[]>().notNull(),
    /** The payouts whose credits the file carries (a payout run's file). */
    payoutIds: jsonb('payout_ids').$type<string[]>().notNull().default([]),
    /** The NACHA file, encrypted (AES-256-GCM, DATA_ENCRYPTION_KEYS): it holds full account numbers. */
    contentEnc: text('content').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('ach_files_created_idx').on(t.createdAt, t.id)],
);

export type SettlementBatch = typeof settlementBatches.$inferSelect;
export type AchFile = typeof achFiles.$inferSelect;
