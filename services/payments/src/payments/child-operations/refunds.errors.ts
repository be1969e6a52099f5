import { ApiError } from '@pps/shared/http';
import { pointers } from '../model/payments.errors';

export const childPointers = {
  parentPaymentId: '/data/attributes/parentPaymentId',
  amount: pointers.amount,
  currency: '/data/attributes/transaction/currency',
  splitMerchantId: pointers.splitMerchantId,
  splitAmount: pointers.splitAmount,
} as const;

const parent = childPointers.parentPaymentId;

/** Errors of the operations on an existing payment: refund (or void), refundSplit, secondSplit. */
export const refundErrors = {
  childRecord: (id: string, paymentType: string) =>
    new ApiError({
      status: 422,
      code: 'payment_not_refundable',
      detail: `Payment ${id} is a ${paymentType} record; operations apply to the original payment`,
      pointer: parent,
    }),
  notRefundable: (id: string, status: string) =>
    new ApiError({
      status: 422,
      code: 'payment_not_refundable',
      detail: `Payment ${id} is ${status}; there is nothing to refund`,
      pointer: parent,
    }),
  alreadyRefunded: (id: string) =>
    new ApiError({
      status: 422,
      code: 'already_refunded',
      detail: `Payment ${id} is already fully refunded`,
      pointer: parent,
    }),
  achNotSettled: (id: string) =>
    new ApiError({
      status: 422,
      code: 'ach_not_settled',
      detail: `ACH payment ${id} has not settled yet; it can be refunded once completed (ACH is never voided)`,
      pointer: parent,
    }),
  currencyMismatch: (currency: string) =>
    new ApiError({
      status: 400,
      code: 'currency_mismatch',
      detail: `currency must be the original payment's currency, ${currency}`,
      pointer: childPointers.currency,
    }),
  refundExceeds: (refundable: number, what: string) =>
    new ApiError({
      status: 400,
      code: 'refund_exceeds_amount',
      detail: `amount exceeds the ${what}: at most ${refundable} cents can still be refunded`,
      pointer: childPointers.amount,
    }),
  /** A refund or void of money a chargeback has already taken back (docs/design.md, Disputes). */
  disputed: (id: string, disputed: number) =>
    new ApiError({
      status: 422,
      code: 'payment_disputed',
      detail:
        disputed > 0
          ? `Payment ${id} is disputed: ${disputed} cents were taken back by a chargeback and cannot be refunded`
          : `Payment ${id} is disputed; it cannot be voided`,
      pointer: childPointers.amount,
    }),
  noSplit: (id: string) =>
    new ApiError({
      status: 422,
      code: 'payment_has_no_split',
      detail: `Payment ${id} has no split to refund; use paymentType refund`,
      pointer: parent,
    }),
  notSplittable: (id: string, why: string) =>
    new ApiError({
      status: 422,
      code: 'payment_not_splittable',
      detail: `Payment ${id} ${why}; a second split needs an approved card payment not voided or refunded`,
      pointer: parent,
    }),
  secondSplitNotEnabled: (merchantId: string) =>
    new ApiError({
      status: 422,
      code: 'second_split_not_enabled',
      detail: `Second splits are not enabled for merchant ${merchantId}; the operator switches them on`,
      pointer: parent,
    }),
  secondSplitAmount: (remainingNet: number) =>
    new ApiError({
      status: 400,
      code: 'invalid_split_amount',
      detail:
        remainingNet > 1
          ? `split.amount must be below the primary merchant's remaining net of ${remainingNet} cents`
          : "the primary merchant's remaining net leaves nothing to split",
      pointer: childPointers.splitAmount,
    }),
};
