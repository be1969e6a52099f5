import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { timestamps, ts } from './columns';

export const merchantStatuses = ['active', 'pending', 'suspended', 'closed'] as const;
export type MerchantStatus = (typeof merchantStatuses)[number];
export const avsModes = ['Standard', 'Strict', 'Disabled'] as const;
export type AvsMode = (typeof avsModes)[number];

export type MerchantFeatures = { secondSplit?: boolean };

/**
 * A merchant onboarded by an account. Owned by the merchants service.
 * Sensitive values live only in the `*_enc` columns (AES-256-GCM, key id inside the ciphertext);
 * duplicates are found through keyed blind indexes, never by decrypting.
 */
export const merchants = pgTable(
  'merchants',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    status: text('status').$type<MerchantStatus>().notNull(),
    statusReason: text('status_reason'),
    accountType: text('account_type').$type<'personal' | 'business'>().notNull(),
    accountName: text('account_name').notNull(),
    avsMode: text('avs_mode').$type<AvsMode>().notNull().default('Standard'),
    fraudScreenPolicy: text('fraud_screen_policy').notNull().default('Default'),
    fraudScreenSessionId: text('fraud_screen_session_id'),
    miscData: text('misc_data'),
    email: text('email').notNull(),
    /** Non-sensitive parts of the request groups, stored as given. */
    personalInfo: jsonb('personal_info').$type<Record<string, unknown>>().notNull(),
    personalAddress: jsonb('personal_address').$type<Record<string, unknown>>().notNull(),
    businessInfo: jsonb('business_info').$type<Record<string, unknown> | null>(),
    businessAddress: jsonb('business_address').$type<Record<string, unknown> | null>(),
    verificationData: jsonb('verification_data').$type<Record<string, unknown>>().notNull(),
    ssnEnc: text('ssn_enc').notNull(),
    ssnLast4: text('ssn_last4').notNull(),
    birthDateEnc: text('birth_date_enc').notNull(),
    einEnc: text('ein_enc'),
    einLast4: text('ein_last4'),
    emailIndex: text('email_index').notNull(),
    /** Blind index of the tax id used for duplicates: the EIN for a business, else the SSN. */
    taxIdIndex: text('tax_id_index').notNull(),
    features: jsonb('features').$type<MerchantFeatures>().notNull().default({}),
    /** Per-merchant pricing; null means the platform default. */
    feeRateBasisPoints: integer('fee_rate_basis_points'),
    feeFixedCents: integer('fee_fixed_cents'),
    ...timestamps,
  },
  (t) => [
    index('merchants_account_created_idx').on(t.accountId, t.createdAt),
    uniqueIndex('merchants_account_email_uq').on(t.accountId, t.emailIndex),
    uniqueIndex('merchants_account_tax_id_uq').on(t.accountId, t.taxIdIndex),
  ],
);

/**
 * Bank accounts are versioned: an update adds a version and supersedes the previous one, which stays
 * so that deposits already pending keep going where they were created to go.
 */
export const merchantBankAccounts = pgTable(
  'merchant_bank_accounts',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    version: integer('version').notNull(),
    bankName: text('bank_name').notNull(),
    accountOwnership: text('account_ownership').notNull(),
    accountType: text('account_type').notNull(),
    accountName: text('account_name').notNull(),
    accountNumberEnc: text('account_number_enc').notNull(),
    routingNumberEnc: text('routing_number_enc').notNull(),
    last4: text('last4').notNull(),
    routingLast4: text('routing_last4').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    supersededAt: ts('superseded_at'),
  },
  (t) => [
    uniqueIndex('merchant_bank_accounts_version_uq').on(t.merchantId, t.version),
    uniqueIndex('merchant_bank_accounts_current_uq').on(t.merchantId).where(sql`superseded_at is null`),
  ],
);

export type Merchant = typeof merchants.$inferSelect;
export type NewMerchant = typeof merchants.$inferInsert;
export type MerchantBankAccount = typeof merchantBankAccounts.$inferSelect;
