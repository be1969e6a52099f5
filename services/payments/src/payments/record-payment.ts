import { settleAtFor } from '@pps/shared/clock';
import type { Config } from '@pps/shared/config';
import type { Part, Tx } from '@pps/shared/db';
import { firstEventParts } from '@pps/shared/events';
import { captureLines, postingsPart } from '@pps/shared/ledger';
import type { Logger } from '@pps/shared/logger';
import { assertStoredTransition, PROCESSING } from '@pps/shared/states';
import type { OperationResult } from '../idempotency/idempotency';
import { avsAccepted } from '../processor/avs-policy';
import type { ProcessorAnswer } from '../processor/processor';
import { errorDocumentBody, type FailedTransaction, paymentErrors } from './payments.errors';
import { paymentDocument, paymentResource } from './payments.presenter';
import {
  findMerchant,
  lockPayment,
  type MerchantForPayment,
  type NewPayment,
  type Payment,
  type PaymentOutcome,
  paymentInsertPart,
  paymentOutcomePart,
} from './payments.repository';

/** The API's success code (the processor's own approval code is not shown). */
const APPROVED_CODE = '0';
/** How the payment record reads when the issuer approved but the merchant's AVS policy refuses the result. */
const AVS_REFUSED = { code: 'AVS', message: 'Address verification failed' } as const;
/** How a record reads between its phases (served as `pending`, undecided). */
const AWAITING = { code: 'pending', message: 'Awaiting the processor' } as const;
/** A record recovery found `processing` and the processor knew nothing of: it was never charged. */
export const ABANDONED = {
  code: 'processing_abandoned',
  message: 'The processor has no answer for this payment; it was not made',
} as const;

/**
 * Phase 1 of a new card or ACH payment (docs/design.md, Idempotency and concurrency): its record, checked and priced,
 * inserted `processing` with no outcome yet, no ledger posting and no event. `since` is real time (recovery's clock).
 */
export function processingPart(values: NewPayment, since: Date): Part {
  return paymentInsertPart({ ...values, ...AWAITING, status: PROCESSING, processingSince: since }).part;
}

/** What recording an outcome needs besides the transaction: the service's config and log (no request context). */
export type OutcomeContext = { config: Config; log: Logger };

/**
 * Phase 3 of a new card or ACH payment, and the recovery job's way of finishing one: one function, so an outcome
 * is recorded alike whoever records it. Locks the record (with its merchant's AVS mode, in the same round trip) and,
 * if it is still `processing`, decides it from the processor's answer: approved, a `pending` payment, its capture
 * posting and `payment.created`; declined or AVS-refused, `failed` and `payment.failed` answered 402/422 (returned,
 * not thrown, so it commits). No answer (`null`: the processor never got the request) fails it `processing_abandoned`.
 * Returns the writes (to send with the stored answer) and the answer; undefined when the record is no longer
 * `processing` (recorded already, by the other of the two).
 */
export async function recordOutcome(
  ctx: OutcomeContext,
  tx: Tx,
  claimed: { id: string; merchantId: string },
  answer: ProcessorAnswer | null,
  now: Date,
): Promise<OperationResult | undefined> {
  const [payment, merchant] = await Promise.all([lockPayment(tx, claimed.id), findMerchant(tx, claimed.merchantId)]);
  if (payment?.status !== PROCESSING) return undefined;
  if (!merchant) throw new Error(`payment ${payment.id}: merchant ${payment.merchantId} not found`);
  const decided = decide(payment, merchant, answer);
  const approved = decided.error === undefined;
  const changes: PaymentOutcome = {
    ...decided.columns,
    status: approved ? 'pending' : 'failed',
    settleAt: approved ? settleAtFor(payment.createdAt, settlementDays(ctx.config, payment)) : null,
    failedAt: approved ? null : now,
    updatedAt: now,
  };
  assertStoredTransition(payment.status, changes.status);
  const recorded: Payment = { ...payment, ...changes, processingSince: null };
  const resource = paymentResource(recorded, [], now);
  const writes = [
    paymentOutcomePart(payment.id, changes),
    ...firstEventParts({
      accountId: payment.accountId,
      type: approved ? 'payment.created' : 'payment.failed',
      resource,
      previousStatus: null,
      requestId: payment.requestId,
    }),
  ];
  if (approved) {
    const split =
      payment.splitMerchantId && payment.splitAmount != null
        ? { merchantId: payment.splitMerchantId, amount: payment.splitAmount }
        : null;
    const lines = captureLines({
      rail: payment.paymentType === 'ACH' ? 'ach' : 'card',
      merchantId: payment.merchantId,
      gross: payment.gross,
      grossMinusNet: payment.grossMinusNet,
      split,
    });
    const capture = {
      accountId: payment.accountId,
      paymentId: payment.id,
      merchantId: payment.merchantId,
      kind: 'capture' as const,
      now,
      availableOn: changes.settleAt ?? now,
      lines,
    };
    writes.push(...postingsPart([capture]).parts);
  }
  ctx.log.info(
    { paymentId: payment.id, merchantId: payment.merchantId, requestType: payment.requestType, status: changes.status },
    approved ? 'payment accepted' : 'payment failed',
  );
  const requestId = payment.requestId ?? '';
  const stored = decided.error
    ? { status: decided.error.status, body: errorDocumentBody(decided.error, requestId) }
    : { status: 201, body: paymentDocument(ctx.config.PUBLIC_BASE_URL, resource) };
  return { ...stored, paymentId: payment.id, writes };
}

const settlementDays = (config: Config, payment: Payment) =>
  payment.paymentType === 'ACH' ? config.ACH_SETTLEMENT_BUSINESS_DAYS : config.CARD_SETTLEMENT_BUSINESS_DAYS;

/** The outcome columns the processor's answer gives the record, and the error its client gets when it failed. */
function decide(payment: Payment, merchant: MerchantForPayment, answer: ProcessorAnswer | null) {
  if (!answer) {
    const failure: FailedTransaction = { ...ABANDONED, avsResult: null };
    return {
      columns: { ...ABANDONED, authCode: null, avsResult: null, card: payment.card },
      error: paymentErrors.processingAbandoned(payment.id, failure),
    };
  }
  if (answer.rail === 'ach') {
    if (payment.paymentType !== 'ACH') throw new Error(`payment ${payment.id}: an ACH answer for a card payment`);
    const { outcome } = answer;
    const columns = { code: outcome.code, message: outcome.message, authCode: null, avsResult: null, card: null };
    if (outcome.accepted) return { columns, error: undefined };
    const failure: FailedTransaction = { code: outcome.code, message: outcome.message, avsResult: null };
    return { columns, error: paymentErrors.achRefused(payment.id, failure) };
  }
  if (payment.paymentType !== 'card' || !payment.card) {
    throw new Error(`payment ${payment.id}: a card answer for an ACH payment`);
  }
  const result = answer.authorization;
  const approved = result.approved && avsAccepted(result.avsResult, merchant.avsMode, payment.avsRequested ?? false);
  const outcome = approved
    ? { code: APPROVED_CODE, message: result.message }
    : result.approved
      ? AVS_REFUSED
      : { code: result.code, message: result.message };
  const columns = {
    ...outcome,
    authCode: approved ? result.authCode : null,
    avsResult: result.avsResult ?? null,
    card: { ...payment.card, brand: result.brand ?? payment.card.brand, last4: result.last4 ?? payment.card.last4 },
  };
  if (approved) return { columns, error: undefined };
  const failure: FailedTransaction = { ...outcome, avsResult: columns.avsResult };
  const error = result.approved
    ? paymentErrors.avsMismatch(payment.id, failure, merchant.avsMode)
    : paymentErrors.cardDeclined(payment.id, failure);
  return { columns, error };
}
