import { index, integer, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { timestamps, ts } from './columns';

/** An application of an account; its id is the `appId` header. Owned by the gateway. */
export const apps = pgTable(
  'apps',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    /** Version of the app key in force; app tokens carry it, so a new key revokes older tokens. */
    keyVersion: integer('key_version').notNull().default(0),
    ...timestamps,
  },
  (t) => [index('apps_account_idx').on(t.accountId)],
);

/** Every app key ever issued, kept so a superseded key gets a precise 401. Only hashes are stored. */
export const appKeys = pgTable(
  'app_keys',
  {
    keyHash: text('key_hash').primaryKey(),
    appId: text('app_id')
      .notNull()
      .references(() => apps.id),
    version: integer('version').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    supersededAt: ts('superseded_at'),
  },
  (t) => [unique('app_keys_app_version_uq').on(t.appId, t.version)],
);

export type App = typeof apps.$inferSelect;
export type AppKey = typeof appKeys.$inferSelect;
