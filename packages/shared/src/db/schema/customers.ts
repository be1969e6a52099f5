import { sql } from 'drizzle-orm';
import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { timestamps } from './columns';
import { merchants } from './merchants';

/**
 * A customer of an account (a payer), optionally tied to one merchant. Owned by the payments service.
 * `externalId` is the platform's own reference; it is indexed for lookups but not unique, since a platform may
 * keep one customer record per merchant for the same person. `createdAt` comes from the account's sandbox clock.
 */
export const customers = pgTable(
  'customers',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    email: text('email'),
    phone: text('phone'),
    externalId: text('external_id'),
    merchantId: text('merchant_id').references(() => merchants.id),
    ...timestamps,
  },
  (t) => [
    index('customers_account_created_idx').on(t.accountId, t.createdAt, t.id),
    index('customers_account_external_idx').on(t.accountId, t.externalId),
    index('customers_account_merchant_idx').on(t.accountId, t.merchantId),
    /** A customer by email, in any case: `GET /payments?customerEmail=` starts from the customers it names. */
    index('customers_account_email_idx').on(t.accountId, sql`lower(email)`),
  ],
);

export type Customer = typeof customers.$inferSelect;
export type NewCustomer = typeof customers.$inferInsert;
