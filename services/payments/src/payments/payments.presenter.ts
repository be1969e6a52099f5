import { voidWindowEnd } from '@pps/shared/clock';
import { absoluteUrl } from '@pps/shared/http';
import { formatCents, formatRate } from '@pps/shared/money';
import type { Payment, PaymentChild } from './payments.repository';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

const REFUND_TYPES = new Set<string>(['refund', 'refundSplit']);
/** Children that reduce the primary's refundable amount (split refunds do not: they come out of the split). */
const activeRefunds = (children: PaymentChild[]) =>
  children.filter((child) => child.paymentType === 'refund' && child.status !== 'failed');

/**
 * What `refund` may still take (DESIGN §9): gross − the first split − refunds made; "0" once failed, voided or
 * refunded, on child records, and on ACH before it settles.
 */
export function refundableAmount(payment: Payment, children: PaymentChild[]): number {
  if (payment.parentPaymentId || !['card', 'ACH'].includes(payment.paymentType)) return 0;
  if (payment.status === 'failed' || payment.status === 'voided' || payment.status === 'refunded') return 0;
  if (payment.paymentType === 'ACH' && payment.status === 'pending') return 0;
  const refunded = activeRefunds(children).reduce((sum, child) => sum + child.amount, 0);
  return Math.max(0, payment.gross - (payment.splitAmount ?? 0) - refunded);
}

/** The end of the void window while a void is still possible (pending card payment, untouched), else null. */
export function voidableUntil(payment: Payment, children: PaymentChild[], now: Date): string | null {
  if (payment.paymentType !== 'card' || payment.parentPaymentId || payment.status !== 'pending') return null;
  if (children.some((child) => child.paymentType === 'refund' || child.paymentType === 'secondSplit')) return null;
  const end = voidWindowEnd(payment.createdAt);
  return now.getTime() <= end.getTime() ? end.toISOString() : null;
}

function transaction(payment: Payment) {
  return {
    code: payment.code,
    message: payment.message,
    amount: formatCents(payment.amount),
    currency: payment.currency,
    ...(payment.invoice != null ? { invoice: payment.invoice } : {}),
    ...(payment.paymentType === 'card' ? { authCode: payment.authCode, avsResult: payment.avsResult } : {}),
    gross: formatCents(payment.gross),
    net: formatCents(payment.net),
    grossMinusNet: formatCents(payment.grossMinusNet),
    fee: formatCents(payment.feeFixed),
    rate: formatRate(payment.rateBasisPoints),
    ...(payment.refundType ? { refundType: payment.refundType } : {}),
    ...(payment.returnCode ? { returnCode: payment.returnCode } : {}),
  };
}

function splits(payment: Payment, children: PaymentChild[]) {
  const list: { merchantId: string; amount: string; status: string }[] = [];
  if (payment.splitMerchantId && payment.splitAmount != null && !payment.parentPaymentId) {
    list.push({
      merchantId: payment.splitMerchantId,
      amount: formatCents(payment.splitAmount),
      status: payment.status,
    });
  }
  for (const child of children) {
    if (child.paymentType === 'secondSplit' && child.splitMerchantId && child.splitAmount != null) {
      list.push({ merchantId: child.splitMerchantId, amount: formatCents(child.splitAmount), status: child.status });
    }
  }
  return list;
}

/** The attributes every view of a payment starts with (full resource and list item). */
const identity = (payment: Payment) => ({
  paymentType: payment.paymentType,
  merchantId: payment.merchantId,
  ...(payment.parentPaymentId ? { parentPaymentId: payment.parentPaymentId } : {}),
  status: payment.status,
  createdAt: payment.createdAt.toISOString(),
  updatedAt: payment.updatedAt.toISOString(),
});

/** The payment's `data` exactly as GET /payments/{id} returns it (also the payload of its events). */
export function paymentResource(payment: Payment, children: PaymentChild[], now: Date) {
  const splitList = splits(payment, children);
  const refundIds = children.filter((child) => REFUND_TYPES.has(child.paymentType)).map((child) => child.id);
  return {
    type: 'payments' as const,
    id: payment.id,
    attributes: {
      ...identity(payment),
      settleAt: iso(payment.settleAt),
      settledAt: iso(payment.settledAt),
      transaction: transaction(payment),
      ...(payment.card ? { card: payment.card } : {}),
      ...(payment.paymentType === 'card' && !payment.parentPaymentId ? { billingAddress: payment.billingAddress } : {}),
      ...(payment.bank ? { bank: payment.bank } : {}),
      ...(splitList.length > 0 ? { splits: splitList } : {}),
      ...(payment.parentPaymentId ? {} : { refunds: refundIds }),
      miscData: payment.miscData,
      refundableAmount: formatCents(refundableAmount(payment, children)),
      voidableUntil: voidableUntil(payment, children, now),
    },
  };
}

export type PaymentResource = ReturnType<typeof paymentResource>;

export const paymentUrl = (baseUrl: string, id: string) => absoluteUrl(baseUrl, `/payments/${id}`);

export const paymentDocument = (baseUrl: string, resource: PaymentResource) => ({
  links: { self: paymentUrl(baseUrl, resource.id) },
  data: resource,
});

/** GET /payments/status/{id}. */
export const paymentStatusDocument = (payment: Payment) => ({
  data: {
    type: 'payments' as const,
    id: payment.id,
    attributes: {
      status: payment.status,
      paymentType: payment.paymentType,
      amount: formatCents(payment.amount),
      currency: payment.currency,
      createdAt: payment.createdAt.toISOString(),
      updatedAt: payment.updatedAt.toISOString(),
    },
  },
});

/** A list item of GET /payments: the spec's attributes and a few that make a list readable. */
export const paymentSummary = (payment: Payment) => ({
  type: 'payments' as const,
  id: payment.id,
  attributes: {
    ...identity(payment),
    transaction: {
      code: payment.code,
      message: payment.message,
      amount: formatCents(payment.amount),
      currency: payment.currency,
      ...(payment.invoice != null ? { invoice: payment.invoice } : {}),
      gross: formatCents(payment.gross),
      net: formatCents(payment.net),
      grossMinusNet: formatCents(payment.grossMinusNet),
    },
  },
});
