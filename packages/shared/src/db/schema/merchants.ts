import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { timestamps, ts } from './columns';

export const merchantStatuses = ['active', 'pending', 'suspended', 'closed'] as const;
export type MerchantStatus = (typeof merchantStatuses)[number];
export const avsModes = ['Standard', 'Strict', 'Disabled'] as const;
export type AvsMode = (typeof avsModes)[number];

export type MerchantFeatures = { secondSplit?: boolean };
export const fraudScreenPolicies = ['Default', 'Strict', 'Disabled'] as const;
export type FraudScreenPolicy = (typeof fraudScreenPolicies)[number];

/** The stored request groups hold no sensitive value: SSN, EIN and birth date live only in `*_enc` columns. */
export type MerchantPersonalInfo = {
  firstName: string;
  lastName: string;
  email: string;
  dayPhone: string;
  eveningPhone?: string;
};
export type MerchantAddress = {
  line1: string;
  line2?: string;
  city: string;
  state: string;
  zip: string;
  country: string;
};
export type MerchantBusinessInfo = { businessName: string; phone?: string; email?: string; url?: string };
export type MerchantVerificationData = {
  ipAddress: string;
  emailVerified: boolean;
  emailVerifiedTimestamp?: string;
  signature: string;
  signatureTimestamp: string;
  termsAccepted: boolean;
};

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
    fraudScreenPolicy: text('fraud_screen_policy').$type<FraudScreenPolicy>().notNull().default('Default'),
    fraudScreenSessionId: text('fraud_screen_session_id'),
    miscData: text('misc_data'),
    email: text('email').notNull(),
    /** Non-sensitive parts of the request groups, stored as given. */
    personalInfo: jsonb('personal_info').$type<MerchantPersonalInfo>().notNull(),
    personalAddress: jsonb('personal_address').$type<MerchantAddress>().notNull(),
    businessInfo: jsonb('business_info').$type<MerchantBusinessInfo>(),
    businessAddress: jsonb('business_address').$type<MerchantAddress>(),
    verificationData: jsonb('verification_data').$type<MerchantVerificationData>().notNull(),
    ssnEnc: text('ssn_enc').notNull(),
    ssnLast4: text('ssn_last4').notNull(),
    birthDateEnc: text('birth_date_enc').notNull(),
    /** The birth year: responses show the birth date as `xxxx` + these four, like the other masked values. */
    birthDateLast4: text('birth_date_last4').notNull(),
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
    index('merchants_account_status_created_idx').on(t.accountId, t.status, t.createdAt),
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
    accountOwnership: text('account_ownership').$type<'personal' | 'business'>().notNull(),
    accountType: text('account_type').$type<'checking' | 'savings'>().notNull(),
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
