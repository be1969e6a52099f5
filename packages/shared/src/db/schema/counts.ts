import { bigint, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';

/** The lists whose totals are kept, and what scopes and buckets each one's rows (migration 0024). */
export const countedLists = {
  /** A merchant's payments, as primary or as split receiver; bucket: status (`processing` is not counted). */
  payments: 'payments',
  /** A merchant's balance transactions; bucket: type. */
  balanceTransactions: 'balance_transactions',
  /** A merchant's payouts; bucket: status. */
  merchantPayouts: 'payouts',
  /** An account's payouts; bucket: status. */
  accountPayouts: 'account_payouts',
  /** An account's events; bucket: type. */
  events: 'events',
  /** An endpoint's webhook deliveries; one bucket, `all`. */
  webhookDeliveries: 'webhook_deliveries',
  /** An account's merchants; bucket: status. */
  merchants: 'merchants',
  /** An account's disputes; bucket: status. */
  accountDisputes: 'account_disputes',
  /** A merchant's disputes; bucket: status. */
  merchantDisputes: 'disputes',
  /** An account's request log; bucket: method and status (`POST 201`). */
  requests: 'requests',
} as const;
export type CountedList = (typeof countedLists)[keyof typeof countedLists];

/**
 * The kept totals of the lists (docs/design.md, A merchant's history never slows the API): how many rows of
 * `list` each scope (a merchant, an account, an endpoint) has in each bucket (a status, a type). Triggers on the
 * listed tables (migration 0024) move them in the statement that inserts, updates or deletes the rows, one delta
 * per scope and bucket per statement, on the writing connection's slot (`pg_backend_pid() % 16`, as
 * `ledger_balances`): a list's `meta.total` reads a few rows instead of counting the history.
 */
export const listCounts = pgTable(
  'list_counts',
  {
    list: text('list').$type<CountedList>().notNull(),
    scope: text('scope').notNull(),
    bucket: text('bucket').notNull(),
    slot: smallint('slot').notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.list, t.scope, t.bucket, t.slot] })],
);
