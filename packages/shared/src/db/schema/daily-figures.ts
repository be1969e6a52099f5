import { bigint, date, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';

/**
 * An account's new payments per day, kept as they are written (migration 0037): the console's home chart and
 * `GET /reports/daily` read 30 rows where counting the payments would read the account's whole month. A day is the
 * Pacific date of the payment's `created_at` (by the account's clock, as every day of the platform). Only payments
 * count, not their refunds or captures: `attempts` every card or ACH payment with an outcome, `approved` those not
 * declined, `approvedAmount` their amounts in cents. A trigger on `payments` adds each insert statement's rows, one
 * upsert per account and day per statement, on the writing connection's slot (`pg_backend_pid() % 16`, as
 * `list_counts`); readers sum the slots.
 */
export const dailyFigures = pgTable(
  'daily_figures',
  {
    accountId: text('account_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    slot: smallint('slot').notNull(),
    attempts: bigint('attempts', { mode: 'number' }).notNull(),
    approved: bigint('approved', { mode: 'number' }).notNull(),
    approvedAmount: bigint('approved_amount', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.slot] })],
);
