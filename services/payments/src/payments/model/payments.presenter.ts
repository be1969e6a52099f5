import { absoluteUrl } from '@pps/shared/http';
import { formatCents, formatRate } from '@pps/shared/money';
import { servedPaymentStatus } from '@pps/shared/states';
import type { Payment, PaymentChild } from './payments.repository';
import { type RefundFigures, refundFigures, voidableUntil } from './refund-rules';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

const REFUND_TYPES = new Set<string>(['refund', 'refundSplit']);

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

/** The first split's status: its own refunds first, else whether the parent has settled. */
function firstSplitStatus(payment: Payment, figures: RefundFigures, splitAmount: number): string {
  if (payment.status === 'failed' || payment.status === 'voided') return payment.status;
  if (figures.splitRefunded >= splitAmount) return 'refunded';
  if (figures.splitRefunded > 0) return 'partial_refund';
  return payment.settledAt ? 'completed' : 'pending';
}

/** The merchants sharing a payment: the first split (refundable by `refundSplit`), then second splits. */
function splits(payment: Payment, children: PaymentChild[], figures: RefundFigures) {
  const list: { merchantId: string; amount: string; status: string; refundableAmount: string }[] = [];
  if (payment.splitMerchantId && payment.splitAmount != null && !payment.parentPaymentId) {
    list.push({
      merchantId: payment.splitMerchantId,
      amount: formatCents(payment.splitAmount),
      status: firstSplitStatus(payment, figures, payment.splitAmount),
      refundableAmount: formatCents(figures.splitRefundable),
    });
  }
  for (const child of children) {
    if (child.paymentType === 'secondSplit' && child.splitMerchantId && child.splitAmount != null) {
      list.push({
        merchantId: child.splitMerchantId,
        amount: formatCents(child.splitAmount),
        status: servedPaymentStatus(child.status),
        refundableAmount: '0',
      });
    }
  }
  return list;
}

/** The refund and void records of a payment, split refunds included, oldest first. */
const refunds = (children: PaymentChild[]) =>
  children
    .filter((child) => REFUND_TYPES.has(child.paymentType))
    .map((child) => ({
      id: child.id,
      type: child.paymentType === 'refundSplit' ? ('refundSplit' as const) : (child.refundType ?? 'refund'),
      amount: formatCents(child.amount),
      status: servedPaymentStatus(child.status),
      createdAt: child.createdAt.toISOString(),
    }));

/**
 * ACH: the masked bank account, the SEC code beside it (never the full numbers), and its entry's trace number once
 * filed.
 */
function bankOf(payment: Payment) {
  if (!payment.bank) return {};
  const { standardEntryClassCode, ...bank } = payment.bank;
  return {
    bank,
    ...(standardEntryClassCode ? { StandardEntryClassCode: standardEntryClassCode } : {}),
    traceNumber: payment.traceNumber,
  };
}

/** The attributes every view of a payment starts with (full resource and list item). */
const identity = (payment: Payment) => ({
  paymentType: payment.paymentType,
  merchantId: payment.merchantId,
  ...(payment.parentPaymentId ? { parentPaymentId: payment.parentPaymentId } : {}),
  // `processing` (between a new payment's phases) is internal: it reads `pending`, undecided.
  status: servedPaymentStatus(payment.status),
  createdAt: payment.createdAt.toISOString(),
  updatedAt: payment.updatedAt.toISOString(),
});

/** The payment's `data` exactly as GET /payments/{id} returns it (also the payload of its events). */
export function paymentResource(payment: Payment, children: PaymentChild[], now: Date) {
  const figures = refundFigures(payment, children);
  const splitList = splits(payment, children, figures);
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
      ...bankOf(payment),
      ...(splitList.length > 0 ? { splits: splitList } : {}),
      ...(payment.parentPaymentId ? {} : { refunds: refunds(children) }),
      miscData: payment.miscData,
      refundableAmount: formatCents(figures.refundable),
      voidableUntil: iso(voidableUntil(payment, children, now)),
      ...(payment.authorizationExpiresAt
        ? { authorizationExpiresAt: payment.authorizationExpiresAt.toISOString() }
        : {}),
      ...(payment.capturedAt ? { capturedAt: payment.capturedAt.toISOString() } : {}),
      ...(payment.voidReason ? { voidReason: payment.voidReason } : {}),
      ...(payment.nextAction ? { nextAction: payment.nextAction } : {}),
      ...(payment.threeDSecure ? { threeDSecure: payment.threeDSecure } : {}),
      ...(payment.paymentType === 'card' && !payment.parentPaymentId
        ? { disputed: (payment.disputes?.length ?? 0) > 0, disputes: (payment.disputes ?? []).map((mark) => mark.id) }
        : {}),
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
      status: servedPaymentStatus(payment.status),
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
