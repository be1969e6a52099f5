import { firstEventParts } from '@pps/shared/events';
import type { ApiError, ServiceContext } from '@pps/shared/http';
import { type LedgerLine, postingsPart } from '@pps/shared/ledger';
import type { OperationResult } from '../idempotency/idempotency';
import { errorDocumentBody } from './payments.errors';
import { paymentDocument, paymentResource } from './payments.presenter';
import { type NewPayment, paymentInsertPart } from './payments.repository';

export type NewPaymentOutcome = { approved: true; capture: LedgerLine[] } | { approved: false; error: ApiError };

/**
 * What every new card or ACH payment writes, in the same transaction: its record, the capture posting when
 * approved, `payment.created` or `payment.failed`, as writes for the caller to send together with the answer stored
 * with the idempotency key (201 with the payment, or the error document of the stored failure: returned, not
 * thrown, so the record commits).
 */
export function recordNewPayment(ctx: ServiceContext, values: NewPayment, outcome: NewPaymentOutcome): OperationResult {
  const { payment, part } = paymentInsertPart(values);
  const now = payment.createdAt;
  const resource = paymentResource(payment, [], now);
  const writes = [
    part,
    ...firstEventParts({
      accountId: ctx.accountId,
      type: outcome.approved ? 'payment.created' : 'payment.failed',
      resource,
      previousStatus: null,
      requestId: ctx.requestId,
    }),
  ];
  if (outcome.approved) {
    const capture = {
      accountId: ctx.accountId,
      paymentId: payment.id,
      merchantId: payment.merchantId,
      kind: 'capture' as const,
      now,
      availableOn: payment.settleAt ?? now,
    };
    writes.push(...postingsPart([{ ...capture, lines: outcome.capture }]).parts);
  }
  ctx.log.info(
    { paymentId: payment.id, merchantId: payment.merchantId, requestType: payment.requestType, status: payment.status },
    outcome.approved ? 'payment accepted' : 'payment failed',
  );
  const answer = outcome.approved
    ? { status: 201, body: paymentDocument(ctx.config.PUBLIC_BASE_URL, resource) }
    : { status: outcome.error.status, body: errorDocumentBody(outcome.error, ctx.requestId) };
  return { ...answer, paymentId: payment.id, writes };
}
