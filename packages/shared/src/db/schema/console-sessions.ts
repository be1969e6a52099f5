import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { ts } from './columns';

/**
 * A signed-in browser of the console (docs/design.md, The console). The browser holds only an opaque cookie; the row
 * is keyed by the cookie's SHA-256, so a database read never yields a usable cookie. An account's session remembers
 * the hash of the API key that signed in: when the account's key changes (or the account is disabled) the session
 * is over at its next request. An operator's session has no account and remembers the admin token's hash instead.
 */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    /** The SHA-256 of the credential that signed in: the account's API key, or the admin token. */
    credentialHash: text('credential_hash').notNull(),
    /** Sent in every state-changing form; compared in constant time. */
    csrfToken: text('csrf_token').notNull(),
    createdAt: ts('created_at').notNull(),
    /** Real time of the last request, kept to the minute: 12 hours after it the session is over. */
    lastSeenAt: ts('last_seen_at').notNull(),
  },
  (t) => [index('console_sessions_account_idx').on(t.accountId), index('console_sessions_seen_idx').on(t.lastSeenAt)],
);

export type ConsoleSession = typeof consoleSessions.$inferSelect;
