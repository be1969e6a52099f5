import { sql } from 'drizzle-orm';
import { bigint, check, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';

export const accountStatuses = ['active', 'disabled'] as const;
export type AccountStatus = (typeof accountStatuses)[number];

/** A platform application's account: our customer. Owned by the gateway. */
export const accounts = pgTable(
  'accounts',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    status: text('status').$type<AccountStatus>().notNull().default('active'),
    apiKeyHash: text('api_key_hash').notNull().unique(),
    apiKeyLast4: text('api_key_last4').notNull(),
    /**
     * Sandbox test clock: seconds this account's clock runs ahead of real time. Never behind: the settlement pass
     * takes what is due by the real clock for every account at once.
     */
    clockOffsetSeconds: bigint('clock_offset_seconds', { mode: 'number' }).notNull().default(0),
    /**
     * The API version the account is pinned to (docs/api.md, Versions): its requests are answered in it unless they
     * ask for another (`PPS-Version`). A new account gets the newest; those made before versions, 2026-11-29, the
     * behaviour they saw then.
     */
    apiVersion: text('api_version').notNull().default('2026-11-29'),
    ...timestamps,
  },
  (t) => [check('accounts_clock_forward', sql`${t.clockOffsetSeconds} >= 0`)],
);

export type Account = typeof accounts.$inferSelect;
export type NewAccount = typeof accounts.$inferInsert;
