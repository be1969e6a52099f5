import { voidWindowEnd } from '@pps/shared/clock';
import type { PaymentStatus } from '@pps/shared/states';
import type { Payment, PaymentChild } from './payments.repository';

/**
 * The money rules of a payment and its children (docs/design.md), as pure functions of the rows: the use cases
 * decide with them under the parent's row lock, and the presenter shows the same figures.
 */

const live = (child: PaymentChild) => child.status !== 'failed';
const sumWhere = (children: PaymentChild[], predicate: (child: PaymentChild) => boolean) =>
  children.filter((child) => live(child) && predicate(child)).reduce((sum, child) => sum + child.amount, 0);

const isRefund = (child: PaymentChild) => child.paymentType === 'refund' && child.refundType === 'refund';
const isSplitRefund = (child: PaymentChild) => child.paymentType === 'refundSplit';
const isSecondSplit = (child: PaymentChild) => child.paymentType === 'secondSplit';

/** A record made by a client payment (card or ACH), not a child of one. */
export const isParentRecord = (payment: Payment) =>
  payment.parentPaymentId === null && (payment.paymentType === 'card' || payment.paymentType === 'ACH');

/** Statuses a parent can still be refunded or split from; ACH only once its debit has settled. */
export function acceptsRefunds(payment: Payment): boolean {
  if (!isParentRecord(payment)) return false;
  if (payment.paymentType === 'ACH' && payment.status === 'pending') return false;
  return payment.status === 'pending' || payment.status === 'completed' || payment.status === 'partial_refund';
}

/** What the payment's disputes have taken back and not returned (docs/design.md, Disputes): no refund takes it. */
export const disputedAmount = (payment: Payment) =>
  (payment.disputes ?? []).reduce((sum, mark) => sum + mark.withdrawn, 0);

export type RefundFigures = {
  /** Σ refunds of the primary share (voids excluded: a void ends the payment). */
  refunded: number;
  /** Σ split refunds of the first split. */
  splitRefunded: number;
  /** Σ second splits moved away from the primary. */
  secondSplits: number;
  /**
   * What `refund` may still take: gross − the first split − refunds − what disputes took back; second splits do
   * not reduce it.
   */
  refundable: number;
  /** What `refundSplit` may still take: the first split − split refunds. */
  splitRefundable: number;
  /** The primary's net still held: net − second splits − refunds (may be negative: fees are kept). */
  remainingNet: number;
};

export function refundFigures(payment: Payment, children: PaymentChild[]): RefundFigures {
  const refunded = sumWhere(children, isRefund);
  const splitRefunded = sumWhere(children, isSplitRefund);
  const secondSplits = sumWhere(children, isSecondSplit);
  const open = acceptsRefunds(payment);
  return {
    refunded,
    splitRefunded,
    secondSplits,
    refundable: open ? Math.max(0, payment.gross - (payment.splitAmount ?? 0) - refunded - disputedAmount(payment)) : 0,
    splitRefundable: open && payment.splitAmount !== null ? Math.max(0, payment.splitAmount - splitRefunded) : 0,
    remainingNet: payment.net - secondSplits - refunded,
  };
}

/** What `refund` may still take, 0 when the payment takes no refund (failed, voided, refunded, a child). */
export const refundableAmount = (payment: Payment, children: PaymentChild[]) =>
  refundFigures(payment, children).refundable;

/**
 * The end of the void window while a void is still possible, else null: a card payment not yet settled, still
 * `pending`, untouched by any refund, split refund or second split, and the account's clock inside the Pacific
 * processing day it was made on (captured on, for an authorization captured later).
 */
export function voidableUntil(payment: Payment, children: PaymentChild[], now: Date): Date | null {
  if (payment.paymentType !== 'card' || !isParentRecord(payment)) return null;
  if (payment.status !== 'pending' || payment.settledAt !== null) return null;
  if (children.some((child) => live(child) && (isRefund(child) || isSplitRefund(child) || isSecondSplit(child))))
    return null;
  const end = voidWindowEnd(payment.capturedAt ?? payment.createdAt);
  return now.getTime() <= end.getTime() ? end : null;
}

/** The parent's status once `amount` more is refunded: `refunded` when all refunds reach the gross. */
export function statusAfterRefund(
  payment: Payment,
  figures: RefundFigures,
  amount: number,
): Extract<PaymentStatus, 'refunded' | 'partial_refund'> {
  return figures.refunded + figures.splitRefunded + amount >= payment.gross ? 'refunded' : 'partial_refund';
}
