import { sql } from 'drizzle-orm';
import { bigint, boolean, foreignKey, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { StoredPaymentStatus } from '../../states/payment-states';
import { accounts } from './accounts';
import { type BillingAddress, ts } from './columns';
import { merchants } from './merchants';

/** What a record is, as responses show it: token payments are `card`; the others are children of a payment. */
export const paymentTypes = ['card', 'ACH', 'refund', 'refundSplit', 'secondSplit', 'capture'] as const;
export type PaymentType = (typeof paymentTypes)[number];

/** The `paymentType` the client sent, kept apart from what the record is. */
export const paymentRequestTypes = [
  'tokenv3',
  'card',
  'tokenv3Split',
  'ACH',
  'refund',
  'refundSplit',
  'secondSplit',
  'capture',
] as const;
export type PaymentRequestType = (typeof paymentRequestTypes)[number];

export type CardSnapshot = { brand: string; last4: string; expiry: string; holder: string };

/**
 * A dispute of a card payment as its row keeps it (the dispute's own row is the record): its id, and what it has
 * taken back and not returned (a chargeback's amount until it is won; 0 for an inquiry), which refunds cannot take.
 */
export type DisputeMark = { id: string; withdrawn: number };

/**
 * A card payment's 3-D Secure (docs/design.md, 3-D Secure): how the cardholder was authenticated (`frictionless`:
 * by the issuer, no page; `challenge`: on the hosted challenge page; null: not enrolled, so not at all), with what
 * result, under which protocol version, and the ECI the issuer gave an authenticated payment.
 */
export type ThreeDSecure = {
  flow: 'frictionless' | 'challenge' | null;
  result: 'authenticated' | 'failed' | 'not_enrolled' | 'abandoned' | null;
  version: '2.2.0';
  eci: string | null;
};

/** A card payment's `authentication` as its request gave it. */
export type AuthenticationRequested = { mode: 'automatic' | 'challenge'; returnUrl: string };

/** What a payment waiting for its cardholder asks the client to do: send them to the challenge page. */
export type NextAction = { type: 'redirect'; url: string };
/** ACH bank details as shown on retrieval; the full account number never lands here. */
export type BankSnapshot = {
  bankName: string;
  accountType: string;
  accountName: string;
  last4: string;
  routingLast4: string;
  standardEntryClassCode?: string;
};

const cents = (name: string) => bigint(name, { mode: 'number' });

/**
 * The statuses a record can settle from: pending, or refunded (in part or whole) before it settled. Written into
 * the settlement claim's text as here, so its prepared plan can use the due indexes.
 */
export const SETTLEABLE_STATUSES = ['pending', 'partial_refund', 'refunded'] as const;

/** The due indexes' condition, which the settlement claim repeats word for word (`of`: its table's name or alias). */
export const dueCondition = (of?: string) => {
  const column = (name: string) => (of ? `${of}.${name}` : name);
  const statuses = SETTLEABLE_STATUSES.map((status) => `'${status}'`).join(', ');
  return `${column('settled_at')} is null and ${column('settle_at')} is not null and ${column('status')} in (${statuses})`;
};

/**
 * A record's columns, one set for the two tables that hold records: `payments`, and `payment_claims` (a new payment
 * between its phases). Fresh builders on each call: a table builds its columns from them.
 */
const paymentColumns = () => ({
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  merchantId: text('merchant_id').notNull(),
  parentPaymentId: text('parent_payment_id'),
  paymentType: text('payment_type').$type<PaymentType>().notNull(),
  requestType: text('request_type').$type<PaymentRequestType>().notNull(),
  status: text('status').$type<StoredPaymentStatus>().notNull(),
  amount: cents('amount').notNull(),
  currency: text('currency').notNull(),
  invoice: text('invoice'),
  gross: cents('gross').notNull(),
  /** Pricing in force when the record was made: fixed fee (cents) and rate (basis points). */
  feeFixed: cents('fee_fixed').notNull(),
  rateBasisPoints: integer('rate_basis_points').notNull(),
  grossMinusNet: cents('gross_minus_net').notNull(),
  net: cents('net').notNull(),
  /** The first split of a tokenv3Split (or the moved amount of a secondSplit); carries no fee. */
  splitMerchantId: text('split_merchant_id'),
  splitAmount: cents('split_amount'),
  refundType: text('refund_type').$type<'void' | 'refund'>(),
  code: text('code').notNull(),
  message: text('message').notNull(),
  authCode: text('auth_code'),
  avsResult: text('avs_result'),
  returnCode: text('return_code'),
  tokenId: text('token_id'),
  card: jsonb('card').$type<CardSnapshot>(),
  billingAddress: jsonb('billing_address').$type<BillingAddress>(),
  bank: jsonb('bank').$type<BankSnapshot>(),
  /** ACH: the debited account, encrypted (AES-256-GCM, DATA_ENCRYPTION_KEYS); read only to write NACHA entries. */
  bankAccountNumberEnc: text('bank_account_number_enc'),
  bankRoutingNumberEnc: text('bank_routing_number_enc'),
  /** The NACHA file that carried this ACH entry (set by the settlement pass that wrote it). */
  achFileId: text('ach_file_id'),
  /** That entry's trace number, as the file has it: what a bank's return of the entry names. */
  traceNumber: text('trace_number'),
  miscData: text('misc_data'),
  settleAt: ts('settle_at'),
  settledAt: ts('settled_at'),
  voidedAt: ts('voided_at'),
  failedAt: ts('failed_at'),
  /** The x-request-id of the call that created the record (tracing; the idempotency key lives apart). */
  requestId: text('request_id'),
  /**
   * A new card or ACH payment between its phases (a claim, status `processing`): when it entered them, in real
   * time. Recovery resolves the claims left this way too long (docs/design.md). Null on every payment recorded.
   */
  processingSince: ts('processing_since'),
  /**
   * Whether the charge asked for address verification (tokenv3 `useAVS`, or the vault's ZIP), kept so the outcome
   * is judged by the same policy whether it is recorded at once or by recovery.
   */
  avsRequested: boolean('avs_requested'),
  /**
   * Whether the charge captures at once (`capture`, true by default) or only authorizes (`capture: false`): kept so
   * the outcome is recorded alike by the request or by recovery. Null on records made before authorizations.
   */
  captureRequested: boolean('capture_requested'),
  /** An authorization (`authorized`): when it lapses by the account's clock, voided by the settlement pass. */
  authorizationExpiresAt: ts('authorization_expires_at'),
  /** An authorization captured: when (its settlement counts from here). */
  capturedAt: ts('captured_at'),
  /** Why a record was voided when no client asked (`authorization_expired`); null otherwise. */
  voidReason: text('void_reason').$type<'authorization_expired' | 'cancelled' | 'authentication_abandoned'>(),
  /** A card payment's disputes, oldest first; null until its first (docs/design.md, Disputes). */
  disputes: jsonb('disputes').$type<DisputeMark[]>(),
  /**
   * A card payment sent with `authentication` (3-D Secure): the request as given, kept so a challenge is made alike
   * whether phase 3 or recovery records it, and so its page knows where to send the cardholder back.
   */
  authentication: jsonb('authentication').$type<AuthenticationRequested>(),
  /** A card payment sent with `authentication`: how it went; null for every other payment. */
  threeDSecure: jsonb('three_d_secure').$type<ThreeDSecure>(),
  /** While `requires_action`: where the cardholder goes to answer the challenge; null otherwise. */
  nextAction: jsonb('next_action').$type<NextAction>(),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

/**
 * Every money movement record: payments, and their children (refunds, voids, split refunds, second splits)
 * linked through `parentPaymentId`. Owned by the payments service. Amounts are integer cents.
 * `createdAt`/`updatedAt` and the state timestamps come from the account's sandbox clock.
 */
export const payments = pgTable('payments', paymentColumns(), (t) => [
  foreignKey({ columns: [t.accountId], foreignColumns: [accounts.id] }),
  foreignKey({ columns: [t.merchantId], foreignColumns: [merchants.id] }),
  foreignKey({ columns: [t.parentPaymentId], foreignColumns: [t.id] }),
  foreignKey({ columns: [t.splitMerchantId], foreignColumns: [merchants.id] }),
  // Listing indexes are ascending and read backward for newest first. drizzle's `.desc()` makes `DESC NULLS
  // LAST`, which `ORDER BY … desc` (nulls first) cannot use: every listing sorted all its rows (docs/decisions.md,
  // "Performance: scans that grew with the tables").
  index('payments_merchant_created_idx').on(t.merchantId, t.createdAt, t.id),
  index('payments_split_merchant_created_idx')
    .on(t.splitMerchantId, t.createdAt, t.id)
    .where(sql`split_merchant_id is not null`),
  index('payments_parent_idx').on(t.parentPaymentId).where(sql`parent_payment_id is not null`),
  /** The account's records, newest first: `GET /payments` without a merchant (the console's payments page). */
  index('payments_account_created_idx').on(t.accountId, t.createdAt, t.id),
  /**
   * The list filtered by the card's last four (`last4`), in each of its scopes: the merchant's records, those it
   * takes a split of, the account's. Only records that carry a card; each reads its page along the card's records,
   * newest first, whatever the scope's history (docs/decisions.md, Every console filter is an API filter).
   */
  index('payments_merchant_last4_idx')
    .on(t.merchantId, sql`(card->>'last4')`, t.createdAt, t.id)
    .where(sql`card is not null`),
  index('payments_split_merchant_last4_idx')
    .on(t.splitMerchantId, sql`(card->>'last4')`, t.createdAt, t.id)
    .where(sql`split_merchant_id is not null and card is not null`),
  index('payments_account_last4_idx')
    .on(t.accountId, sql`(card->>'last4')`, t.createdAt, t.id)
    .where(sql`card is not null`),
  /**
   * The records a vault token paid, newest first: the list filtered by `customerEmail` reads the customer's tokens'
   * records, never the scope's others.
   */
  index('payments_token_created_idx').on(t.tokenId, t.createdAt, t.id).where(sql`token_id is not null`),
  /**
   * What a settlement pass claims: records with a settlement date not settled yet, in the order it takes them.
   * A day's records all settle at the same midnight, so without the id a batch sorted the whole day. Only the
   * settleable statuses: a voided payment or a returned ACH debit keeps its `settle_at` and never settles, and
   * left in the index every claim read them all again (migration 0026).
   */
  index('payments_due_idx').on(t.settleAt, t.id).where(sql.raw(dueCondition())),
  /** The same, for the pass of one account whose sandbox clock is ahead of everyone's. */
  index('payments_account_due_idx').on(t.accountId, t.settleAt, t.id).where(sql.raw(dueCondition())),
  /**
   * What recovery reads of `payments`: the payments a crash left between a completed 3-D Secure challenge and their
   * authorization (the only rows with `status = 'processing'`; a new payment waits in `payment_claims`).
   */
  index('payments_processing_idx').on(t.processingSince, t.id).where(sql`status = 'processing'`),
  /** What the expiry sweep claims: authorizations by when they lapse (the only rows with `status = 'authorized'`). */
  index('payments_authorized_expiry_idx').on(t.authorizationExpiresAt, t.id).where(sql`status = 'authorized'`),
  /** The same, for the sweep of one account whose sandbox clock is ahead of everyone's. */
  index('payments_account_authorized_expiry_idx')
    .on(t.accountId, t.authorizationExpiresAt, t.id)
    .where(sql`status = 'authorized'`),
]);

export type Payment = typeof payments.$inferSelect;
export type NewPayment = typeof payments.$inferInsert;

/**
 * New card and ACH payments between their phases (docs/design.md, The payment write path): phase 1 inserts the
 * record here, `processing`, and phase 3 (or recovery) deletes it and inserts it into `payments` with its outcome,
 * so a payment is written to `payments` once. A handful of rows at any time: its primary key only (how phase 3 and
 * recovery take a claim), no foreign keys (the record is checked when it goes into `payments`, in the same commit
 * that takes the claim), no counts. Recovery reads it whole, oldest first.
 */
export const paymentClaims = pgTable('payment_claims', paymentColumns());

/**
 * The open 3-D Secure challenges (docs/design.md, 3-D Secure): one per payment that waits `requires_action`, found
 * by its single-use token (the hosted page's link) and deleted when the challenge is answered or abandoned, so a
 * link works once. `expiresAt` is by the account's clock (15 minutes from the payment's creation); the clock tick
 * abandons the challenges it has passed, along `challenges_expiry_idx`.
 */
export const paymentChallenges = pgTable(
  'payment_challenges',
  {
    paymentId: text('payment_id')
      .primaryKey()
      .references(() => payments.id),
    accountId: text('account_id').notNull(),
    /** `tds_…`, random: the challenge page's link. */
    token: text('token').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('payment_challenges_token_idx').on(t.token),
    index('payment_challenges_expiry_idx').on(t.expiresAt, t.paymentId),
    index('payment_challenges_account_expiry_idx').on(t.accountId, t.expiresAt, t.paymentId),
  ],
);

export type PaymentChallenge = typeof paymentChallenges.$inferSelect;
