import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { type BillingAddress, timestamps } from './columns';
import { customers } from './customers';

export const tokenTypes = ['card'] as const;
export type TokenType = (typeof tokenTypes)[number];

/**
 * A vault token: a card kept for later charges. Owned by the payments service.
 * The PAN lives only in `panEnc` (AES-256-GCM, key id inside the ciphertext); brand and last four are plain
 * for display. The security code is checked at creation and never stored anywhere.
 */
export const tokens = pgTable(
  'tokens',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    customerId: text('customer_id').references(() => customers.id),
    tokenType: text('token_type').$type<TokenType>().notNull(),
    label: text('label'),
    holder: text('holder').notNull(),
    panEnc: text('pan_enc').notNull(),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    /** MMYY, as given. */
    expiry: text('expiry').notNull(),
    billingAddress: jsonb('billing_address').$type<BillingAddress>(),
    ...timestamps,
  },
  (t) => [
    index('tokens_account_created_idx').on(t.accountId, t.createdAt, t.id),
    index('tokens_customer_created_idx').on(t.customerId, t.createdAt, t.id),
  ],
);

export type Token = typeof tokens.$inferSelect;
export type NewToken = typeof tokens.$inferInsert;
