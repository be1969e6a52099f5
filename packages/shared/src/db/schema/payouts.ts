import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { type PayoutStatus, payoutStatuses } from '../../states/payout-states';
import { accounts } from './accounts';
import { timestamps, ts } from './columns';
import { merchantBankAccounts, merchants } from './merchants';

const cents = (name: string) => bigint(name, { mode: 'number' }).notNull();

export const balanceTransactionTypes = [
  'payment',
  'refund',
  'void',
  'split',
  'split_refund',
  'second_split',
  'ach_return',
  'payout',
  'payout_failure',
  'dispute',
  'dispute_reversal',
  'negative_balance_debit',
] as const;
export type BalanceTransactionType = (typeof balanceTransactionTypes)[number];
export type BalanceTransactionStatus = 'pending' | 'available';

/**
 * One money movement of one merchant (docs/design.md, Balances): written with the ledger posting that moves the
 * money, in the same statement (`postingsPart`), so Σ net of a merchant's rows always equals the merchant's
 * pending + available + in-transit ledger balance. Amounts are signed integer cents, `net = amount − fee`.
 * `status` says which balance the money sits in; settlement turns `pending` rows `available`. `payoutId` is set
 * when a payout carries the row (and on a payout's own row). Only `status`, `availableOn` and `payoutId` ever change.
 */
export const balanceTransactions = pgTable(
  'balance_transactions',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    /** No foreign key, like the ledger's account names it is derived from: the ledger is the record. */
    merchantId: text('merchant_id').notNull(),
    type: text('type').$type<BalanceTransactionType>().notNull(),
    amount: cents('amount'),
    fee: cents('fee'),
    net: cents('net'),
    /** The payment, refund, void, split or payout record that moved the money. */
    sourceId: text('source_id').notNull(),
    postingId: text('posting_id').notNull(),
    status: text('status').$type<BalanceTransactionStatus>().notNull(),
    availableOn: ts('available_on').notNull(),
    payoutId: text('payout_id'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('balance_transactions_merchant_created_idx').on(t.merchantId, t.createdAt, t.id),
    index('balance_transactions_source_idx').on(t.sourceId),
    // A payout's rows. Most rows (every payment's, until a payout carries it) have none: they are not indexed.
    index('balance_transactions_payout_idx').on(t.payoutId).where(sql`payout_id is not null`),
    // The settlement report's chargebacks and reinstatements of an account over days: a few rows among all.
    index('balance_transactions_disputes_idx')
      .on(t.accountId, t.createdAt)
      .where(sql`type in ('dispute', 'dispute_reversal')`),
    // What the next payout of a merchant carries: its available rows no payout carried yet.
    index('balance_transactions_unpaid_idx')
      .on(t.merchantId, t.availableOn)
      .where(sql`status = 'available' and payout_id is null`),
  ],
);

export { type PayoutStatus, payoutStatuses };

/**
 * How a payout came: the schedule, a `POST /payouts`, or the debit of a balance that stayed negative (its amount
 * negative: the money comes from the merchant's bank).
 */
export const payoutMethods = ['automatic', 'manual', 'negative_balance_debit'] as const;
export type PayoutMethod = (typeof payoutMethods)[number];

/**
 * A transfer of a merchant's available balance to its bank account by a NACHA credit (docs/design.md, Payouts), or,
 * with a negative `amount` (`negative_balance_debit`), from it by a NACHA debit.
 * Owned by the payments service; created and advanced only through the payout run (`services/payments/src/payouts/run/`). The bank account is
 * the version in force when the payout was made (`bankAccountId`), so a later change of bank details never
 * redirects it. `broughtForward` / `carriedForward` are what a partial manual payout left in available between
 * this payout and the merchant's previous and next one: the carried balance transactions plus `broughtForward`
 * minus `carriedForward` always equal `amount`.
 */
export const payouts = pgTable(
  'payouts',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    amount: cents('amount'),
    currency: text('currency').notNull().default('USD'),
    status: text('status').$type<PayoutStatus>().notNull(),
    method: text('method').$type<PayoutMethod>().notNull(),
    /** The Pacific business day the deposit is due at the bank (YYYY-MM-DD). */
    arrivalDate: text('arrival_date').notNull(),
    bankAccountId: text('bank_account_id')
      .notNull()
      .references(() => merchantBankAccounts.id),
    bankLast4: text('bank_last4').notNull(),
    routingLast4: text('routing_last4').notNull(),
    broughtForward: cents('brought_forward').default(0),
    carriedForward: cents('carried_forward').default(0),
    achFileId: text('ach_file_id'),
    traceNumber: text('trace_number'),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    requestId: text('request_id'),
    paidAt: ts('paid_at'),
    failedAt: ts('failed_at'),
    ...timestamps,
  },
  (t) => [
    index('payouts_account_created_idx').on(t.accountId, t.createdAt, t.id),
    index('payouts_merchant_created_idx').on(t.merchantId, t.createdAt, t.id),
    // What the payout run files into a NACHA file, then settles: pending payouts, few at any time.
    index('payouts_pending_idx').on(t.arrivalDate, t.id).where(sql`status = 'pending'`),
    // Manual payouts the next run files: the run files its own as it makes them, so this is a handful at most.
    index('payouts_unfiled_idx').on(t.arrivalDate, t.id).where(sql`status = 'pending' and ach_file_id is null`),
  ],
);

/**
 * The merchants whose available balance is below zero, and since which Pacific business day (the payout run's own
 * record, docs/design.md, Negative balances): one negative `NEGATIVE_BALANCE_DEBIT_DAYS` business days is debited
 * for it, and its row goes; one back at zero or above loses its row.
 */
export const negativeBalances = pgTable(
  'negative_balances',
  {
    merchantId: text('merchant_id')
      .primaryKey()
      .references(() => merchants.id),
    accountId: text('account_id').notNull(),
    /** The Pacific date the payout run first saw the balance negative (YYYY-MM-DD). */
    since: text('since').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('negative_balances_account_idx').on(t.accountId)],
);

export const payoutIntervals = ['daily', 'weekly', 'monthly', 'manual'] as const;
export type PayoutInterval = (typeof payoutIntervals)[number];
export const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const;
export type Weekday = (typeof weekdays)[number];

/**
 * When a merchant's available balance is paid out (docs/design.md, Payouts). Owned by the merchants service; one
 * row per merchant, made with it (default daily, no delay). The payout run claims rows with SKIP LOCKED and
 * writes `lastRunOn`, the Pacific day it last considered the merchant, so no merchant is paid twice for one day.
 */
export const payoutSchedules = pgTable(
  'payout_schedules',
  {
    merchantId: text('merchant_id')
      .primaryKey()
      .references(() => merchants.id),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    interval: text('interval').$type<PayoutInterval>().notNull().default('daily'),
    weeklyAnchor: text('weekly_anchor').$type<Weekday>(),
    monthlyAnchor: integer('monthly_anchor'),
    delayDays: integer('delay_days').notNull().default(0),
    lastRunOn: text('last_run_on'),
    ...timestamps,
  },
  (t) => [index('payout_schedules_account_idx').on(t.accountId)],
);

export type BalanceTransaction = typeof balanceTransactions.$inferSelect;
export type Payout = typeof payouts.$inferSelect;
export type NewPayout = typeof payouts.$inferInsert;
export type PayoutSchedule = typeof payoutSchedules.$inferSelect;
