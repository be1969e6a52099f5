import { captureLines, type PostInput } from '@pps/shared/ledger';
import type { Payment } from './payments.repository';

/**
 * A payment's capture posting: gross in from the card or ACH rail, fees and the split out of it (a new payment's,
 * or an authorization's when it is captured, on the captured figures).
 */
export function capturePosting(payment: Payment, now: Date, availableOn: Date): PostInput {
  const split =
    payment.splitMerchantId && payment.splitAmount != null
      ? { merchantId: payment.splitMerchantId, amount: payment.splitAmount }
      : null;
  return {
    accountId: payment.accountId,
    paymentId: payment.id,
    merchantId: payment.merchantId,
    kind: 'capture',
    now,
    availableOn,
    lines: captureLines({
      rail: payment.paymentType === 'ACH' ? 'ach' : 'card',
      merchantId: payment.merchantId,
      gross: payment.gross,
      grossMinusNet: payment.grossMinusNet,
      split,
    }),
  };
}
