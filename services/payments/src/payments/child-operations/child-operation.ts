import { settleAtFor } from '@pps/shared/clock';
import type { EventType, WriteEventInput } from '@pps/shared/events';
import { ApiError, ownedBy, type ServiceContext } from '@pps/shared/http';
import { newId } from '@pps/shared/ids';
import type { LedgerLine, MerchantBucket, PostInput, PostingKind, Rail } from '@pps/shared/ledger';
import { type PaymentStatus, PROCESSING } from '@pps/shared/states';
import type { StoredResponse } from '../idempotency/idempotency.repository';
import type { StatusChange, TransitionColumns } from '../model/payment-transition';
import { paymentDocument, paymentResource } from '../model/payments.presenter';
import { insertedPayment, type NewPayment, type Payment, type PaymentChild } from '../model/payments.repository';
import { acceptsRefunds, isParentRecord } from '../model/refund-rules';
import { childPointers, refundErrors } from './refunds.errors';

/** A payment locked for an operation on it, with its children as they stand under the lock. */
export type LockedParent = { parent: Payment; children: PaymentChild[] };

/**
 * The parent an operation names, as the batch read it under its row lock, with its children: 404 unknown (or not a
 * payment id), 403 another account's, both pointing at `parentPaymentId`.
 */
export function judgeParent(
  ctx: ServiceContext,
  id: string,
  found: Payment | undefined,
  children: PaymentChild[],
): LockedParent {
  const parent = ownedBy(found, ctx, 'payment', id, { pointer: childPointers.parentPaymentId });
  // Nothing was authorized yet: no refund, capture, void or split can take from it.
  if (parent.status === 'requires_action') {
    throw new ApiError({
      status: 422,
      code: 'payment_requires_action',
      detail: `Payment ${parent.id} waits for its cardholder's 3-D Secure authentication: nothing is authorized yet`,
      pointer: childPointers.parentPaymentId,
    });
  }
  return { parent, children };
}

/** The 422s of a parent that takes no refund: a child record, failed, voided, refunded, or unsettled ACH. */
export function assertAcceptsRefunds(parent: Payment): void {
  if (acceptsRefunds(parent)) return;
  if (!isParentRecord(parent)) throw refundErrors.childRecord(parent.id, parent.paymentType);
  if (parent.status === 'refunded') throw refundErrors.alreadyRefunded(parent.id);
  if (parent.paymentType === 'ACH' && parent.status === 'pending') throw refundErrors.achNotSettled(parent.id);
  // `processing` is internal (a new payment waiting for its processor): named as it is served.
  throw refundErrors.notRefundable(
    parent.id,
    parent.status === PROCESSING ? 'pending, awaiting the processor' : parent.status,
  );
}

export function assertSameCurrency(parent: Payment, currency: string): void {
  if (currency !== parent.currency) throw refundErrors.currencyMismatch(parent.currency);
}

export const railOf = (parent: Payment): Rail => (parent.paymentType === 'ACH' ? 'ach' : 'card');

/** Money moved before the parent settles comes out of pending balances; after, out of available ones. */
export const bucketOf = (parent: Payment): MerchantBucket => (parent.settledAt ? 'available' : 'pending');

/** A refund record settles on its parent's rail schedule, counted from the day it is made (docs/design.md). */
export function refundSettleAt(ctx: ServiceContext, parent: Payment, now: Date): Date {
  const days =
    railOf(parent) === 'ach' ? ctx.config.ACH_SETTLEMENT_BUSINESS_DAYS : ctx.config.CARD_SETTLEMENT_BUSINESS_DAYS;
  return settleAtFor(now, days);
}

type ParentStatusAfter = Extract<PaymentStatus, 'pending' | 'voided' | 'refunded' | 'partial_refund'>;

const parentEvents: Record<ParentStatusAfter, EventType> = {
  // Only an authorization becomes `pending` by an operation: captured.
  pending: 'payment.captured',
  voided: 'payment.voided',
  refunded: 'payment.refunded',
  partial_refund: 'payment.partially_refunded',
};

export type ChildOperation = {
  record: {
    paymentType: 'refund' | 'refundSplit' | 'secondSplit' | 'capture';
    refundType?: 'void' | 'refund';
    status: 'pending' | 'completed';
    amount: number;
    message: string;
    /** The other merchant of a split refund or second split. */
    splitMerchantId?: string;
    settleAt?: Date;
    miscData?: string;
  };
  /**
   * Its ledger posting, the record's own unless `paymentId` names another (a capture posts for its parent, which
   * settles it); none when no money moves (an authorization cancelled).
   */
  posting?: { kind: PostingKind; lines: LedgerLine[]; paymentId?: string; availableOn?: Date };
  /** The parent's status change, if the operation makes one. */
  parentChange?: { to: ParentStatusAfter; set?: TransitionColumns };
};

/**
 * What an operation on a parent writes, as data: the group commit (`operationsCommitter`) writes every operation of
 * a batch alike, one statement per table. The answer (201, the record's document), the child record, its posting,
 * the capture it voids, its event, and the parent's status change with the parent's event.
 */
export type ChildOutcome = {
  response: StoredResponse & { paymentId: string };
  record: NewPayment;
  posting?: PostInput;
  /** A void: the parent whose capture's pending balance transactions turn `available` with it, and when. */
  voids?: { sourceId: string; at: Date };
  event: WriteEventInput;
  parentChange?: { change: StatusChange; event: WriteEventInput };
};

/**
 * What every operation on a parent writes (under the parent's row lock): the child record (a payment resource of
 * its own, fee-free: gross = net = amount), its balanced ledger posting if money moves, the parent's status change
 * through the state table, and the outbox events (`payment.created` for the record, the parent's own event).
 */
export function recordChildOperation(
  ctx: ServiceContext,
  { parent, children }: LockedParent,
  operation: ChildOperation,
): ChildOutcome {
  const now = ctx.clock.now();
  const { record, posting, parentChange } = operation;
  const values: NewPayment = {
    id: newId('payment'),
    accountId: ctx.accountId,
    merchantId: parent.merchantId,
    parentPaymentId: parent.id,
    paymentType: record.paymentType,
    requestType: record.paymentType,
    status: record.status,
    amount: record.amount,
    currency: parent.currency,
    invoice: parent.invoice,
    gross: record.amount,
    feeFixed: 0,
    rateBasisPoints: 0,
    grossMinusNet: 0,
    net: record.amount,
    splitMerchantId: record.splitMerchantId ?? null,
    splitAmount: record.splitMerchantId ? record.amount : null,
    refundType: record.refundType ?? null,
    code: '0',
    message: record.message,
    card: parent.card,
    bank: parent.bank,
    // An ACH refund is a credit entry to the same account: the settlement pass writes it into a NACHA file.
    bankAccountNumberEnc: parent.bankAccountNumberEnc,
    bankRoutingNumberEnc: parent.bankRoutingNumberEnc,
    miscData: record.miscData ?? null,
    settleAt: record.settleAt ?? null,
    requestId: ctx.requestId,
    createdAt: now,
    updatedAt: now,
  };
  const child = insertedPayment(values);
  const resource = paymentResource(child, [], now);
  const outcome: ChildOutcome = {
    response: { status: 201, body: paymentDocument(ctx.config.PUBLIC_BASE_URL, resource), paymentId: child.id },
    record: values,
    event: {
      accountId: ctx.accountId,
      type: 'payment.created',
      resource,
      previousStatus: null,
      requestId: ctx.requestId,
    },
  };
  if (posting) {
    outcome.posting = {
      accountId: ctx.accountId,
      paymentId: posting.paymentId ?? child.id,
      merchantId: parent.merchantId,
      kind: posting.kind,
      lines: posting.lines,
      now,
      // What stays pending settles with the child's own record, or with the parent's when it is carried along.
      availableOn: posting.availableOn ?? child.settleAt ?? parent.settleAt ?? now,
    };
    // A void cancels the capture before it settles: neither is left pending (they net zero in available).
    if (posting.kind === 'void') outcome.voids = { sourceId: parent.id, at: now };
  }
  if (parentChange) {
    const { to, set } = parentChange;
    const change: StatusChange = { payment: parent, to, at: now, set };
    const updated: Payment = { ...parent, ...set, status: to, updatedAt: now };
    outcome.parentChange = {
      change,
      event: {
        accountId: ctx.accountId,
        type: parentEvents[to],
        resource: paymentResource(updated, [...children, child], now),
        previousStatus: parent.status,
        requestId: ctx.requestId,
      },
    };
  }
  ctx.log.info(
    { paymentId: child.id, parentPaymentId: parent.id, paymentType: child.paymentType, amount: child.amount },
    `${child.refundType ?? child.paymentType} recorded`,
  );
  return outcome;
}
