import type { Sent } from '@pps/shared/db';
import { sendEvents } from '@pps/shared/events';
import type { ApiError, ServiceContext } from '@pps/shared/http';
import { type LedgerLine, sendPostings } from '@pps/shared/ledger';
import type { OperationResult } from '../idempotency/idempotency';
import { errorDocumentBody } from './payments.errors';
import { paymentDocument, paymentResource } from './payments.presenter';
import type { Payment } from './payments.repository';

export type NewPaymentOutcome = { approved: true; capture: LedgerLine[] } | { approved: false; error: ApiError };

/**
 * What every new card or ACH payment writes once its record's insert is sent, in the same transaction: the capture
 * posting when approved, `payment.created` or `payment.failed` (all sent at once behind the insert, left `pending`
 * for the caller), and the answer stored with the idempotency key (201 with the payment, or the error document of
 * the stored failure: returned, not thrown, so the record commits).
 */
export function recordNewPayment(
  ctx: ServiceContext,
  { payment, written }: { payment: Payment; written: Sent<unknown> },
  outcome: NewPaymentOutcome,
): OperationResult {
  const now = payment.createdAt;
  const resource = paymentResource(payment, [], now);
  const pending = [
    written,
    sendEvents(ctx.db, [
      {
        accountId: ctx.accountId,
        type: outcome.approved ? 'payment.created' : 'payment.failed',
        resource,
        previousStatus: null,
        requestId: ctx.requestId,
      },
    ]),
  ];
  if (outcome.approved) {
    const capture = { accountId: ctx.accountId, paymentId: payment.id, kind: 'capture' as const, now };
    pending.push(sendPostings(ctx.db, [{ ...capture, lines: outcome.capture }]));
  }
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
