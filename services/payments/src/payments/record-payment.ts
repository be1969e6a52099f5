import { writeEvent } from '@pps/shared/events';
import type { ApiError, ServiceContext } from '@pps/shared/http';
import { type LedgerLine, post } from '@pps/shared/ledger';
import type { OperationResult } from '../idempotency/idempotency';
import { errorDocumentBody } from './payments.errors';
import { paymentDocument, paymentResource } from './payments.presenter';
import type { Payment } from './payments.repository';

export type NewPaymentOutcome = { approved: true; capture: LedgerLine[] } | { approved: false; error: ApiError };

/**
 * What every new card or ACH payment writes once its record is in, in the same transaction: the capture posting
 * when approved, `payment.created` or `payment.failed` (both sent at once, left `pending` for the caller), and the
 * answer stored with the idempotency key (201 with the payment, or the error document of the stored failure:
 * returned, not thrown, so the record commits).
 */
export async function recordNewPayment(
  ctx: ServiceContext,
  payment: Payment,
  outcome: NewPaymentOutcome,
): Promise<OperationResult> {
  const now = payment.createdAt;
  const resource = paymentResource(payment, [], now);
  // Sent together, not awaited here: the caller awaits them with the stored response (one round trip).
  const pending = Promise.all([
    outcome.approved
      ? post(ctx.db, { accountId: ctx.accountId, paymentId: payment.id, kind: 'capture', lines: outcome.capture, now })
      : undefined,
    writeEvent(ctx.db, {
      accountId: ctx.accountId,
      type: outcome.approved ? 'payment.created' : 'payment.failed',
      resource,
      previousStatus: null,
      requestId: ctx.requestId,
    }),
  ]);
  ctx.log.info(
    { paymentId: payment.id, merchantId: payment.merchantId, requestType: payment.requestType, status: payment.status },
    outcome.approved ? 'payment accepted' : 'payment failed',
  );
  if (outcome.approved) {
    return { status: 201, body: paymentDocument(ctx.config.PUBLIC_BASE_URL, resource), paymentId: payment.id, pending };
  }
  return {
    status: outcome.error.status,
    body: errorDocumentBody(outcome.error, ctx.requestId),
    paymentId: payment.id,
    pending,
  };
}
