import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { timestamps, ts } from './columns';
import { customers } from './customers';
import { merchants } from './merchants';

/**
 * A checkout session (docs/api.md, Checkout): lets the hosted card form, framed by the platform's page, vault a
 * few cards for one account until it expires. Owned by the payments service; the gateway reads it to serve the
 * form (its frame-ancestors) and to check the client secret, which is kept only as a SHA-256 hash.
 * Times are real time (a credential's lifetime), not the account's sandbox clock.
 */
export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    /** The app whose token created the session. */
    appId: text('app_id').notNull(),
    clientSecretHash: text('client_secret_hash').notNull(),
    /** Origins (`https://shop.example.com`) allowed to frame the form: its CSP frame-ancestors. */
    allowedOrigins: jsonb('allowed_origins').$type<string[]>().notNull(),
    customerId: text('customer_id').references(() => customers.id),
    merchantId: text('merchant_id').references(() => merchants.id),
    maxTokens: integer('max_tokens').notNull(),
    /** The vault tokens made through the session, oldest first; never more than `maxTokens`. */
    tokenIds: jsonb('token_ids').$type<string[]>().notNull().default([]),
    expiresAt: ts('expires_at').notNull(),
    ...timestamps,
  },
  (t) => [index('checkout_sessions_account_created_idx').on(t.accountId, t.createdAt)],
);

export type CheckoutSession = typeof checkoutSessions.$inferSelect;
export type NewCheckoutSession = typeof checkoutSessions.$inferInsert;
