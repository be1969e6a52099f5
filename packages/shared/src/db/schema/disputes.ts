import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { DisputePhase, DisputeReason, DisputeStatus } from '../../states/dispute-states';
import { accounts } from './accounts';
import { ts } from './columns';
import { payments } from './payments';

/** What the merchant answers a dispute with: free texts, each at most 20,000 characters. */
export type DisputeEvidence = {
  productDescription?: string;
  customerName?: string;
  customerCommunication?: string;
  refundPolicy?: string;
  shippingTrackingNumber?: string;
  uncategorizedText?: string;
};

/**
 * A cardholder's dispute of a card payment (docs/design.md, Disputes), owned by the payments service: stored once
 * per network dispute (`networkId`, unique), moved through its machine (`packages/shared/src/states`) by the
 * dispute run and the API, its money moved by postings in the same transactions (`dispute`, `dispute_reversal`).
 * `outcome` and `decidedAt` are the bank's answer to submitted evidence, applied once the account's clock reaches
 * `decidedAt`; `withdrawn` is what the chargeback took back and has not returned.
 */
export const disputes = pgTable(
  'disputes',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    paymentId: text('payment_id')
      .notNull()
      .references(() => payments.id),
    merchantId: text('merchant_id').notNull(),
    networkId: text('network_id').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    reason: text('reason').$type<DisputeReason>().notNull(),
    networkReasonCode: text('network_reason_code').notNull(),
    phase: text('phase').$type<DisputePhase>().notNull(),
    status: text('status').$type<DisputeStatus>().notNull(),
    dueBy: ts('due_by').notNull(),
    evidence: jsonb('evidence').$type<DisputeEvidence>().notNull(),
    submissionCount: integer('submission_count').notNull(),
    submittedAt: ts('submitted_at'),
    outcome: text('outcome').$type<'won' | 'lost'>(),
    decidedAt: ts('decided_at'),
    withdrawn: bigint('withdrawn', { mode: 'number' }).notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    closedAt: ts('closed_at'),
  },
  (t) => [
    uniqueIndex('disputes_network_id_idx').on(t.networkId),
    index('disputes_account_created_idx').on(t.accountId, t.createdAt, t.id),
    index('disputes_merchant_created_idx').on(t.merchantId, t.createdAt, t.id),
    index('disputes_payment_idx').on(t.paymentId),
    // What the dispute run moves by the clock: unanswered ones past dueBy, answered ones past the bank's decision.
    index('disputes_open_idx').on(t.dueBy).where(sql`status = 'needs_response'`),
    index('disputes_decided_idx').on(t.decidedAt).where(sql`status = 'under_review'`),
  ],
);

export type Dispute = typeof disputes.$inferSelect;
export type NewDispute = typeof disputes.$inferInsert;

/**
 * The sandbox's own record of the disputes its test cards will bring (the network's side, which a real connector
 * keeps at the acquirer): written when a dispute card is authorized, read by the sandbox's `disputes`. Not the
 * platform's: nothing else reads or writes it.
 */
export const sandboxDisputes = pgTable('sandbox_disputes', {
  paymentId: text('payment_id').primaryKey(),
  phase: text('phase').$type<DisputePhase>().notNull(),
  reason: text('reason').$type<DisputeReason>().notNull(),
  createdAt: ts('created_at').notNull(),
});
