import { settleAtFor } from '@pps/shared/clock';
import { type Part, type Sent, settledValue, type Tx } from '@pps/shared/db';
import { type EventType, firstEventsParts, sendEvents } from '@pps/shared/events';
import { ownedBy, type ServiceContext } from '@pps/shared/http';
import { isId, newId } from '@pps/shared/ids';
import {
  type LedgerLine,
  type MerchantBucket,
  makeAvailablePart,
  type PostingKind,
  postingsPart,
  type Rail,
} from '@pps/shared/ledger';
import { type PaymentStatus, PROCESSING, type TransitionColumns, transitionPart } from '@pps/shared/states';
import type { OperationResult } from '../idempotency/idempotency';
import { paymentDocument, paymentResource } from '../payments/payments.presenter';
import {
  findChildren,
  lockPayment,
  type NewPayment,
  type Payment,
  type PaymentChild,
  paymentInsertPart,
} from '../payments/payments.repository';
import { acceptsRefunds, isParentRecord } from './refund-rules';
import { childPointers, refundErrors } from './refunds.errors';

/** A payment locked for an operation on it, with its children as they stand under the lock. */
export type LockedParent = { parent: Payment; children: PaymentChild[] };

/**
 * The parent payment of a refund, split refund, second split or capture, locked (held until the transaction ends,
 * so operations on one parent run one at a time), and its children as they stand under that lock; settled, so it
 * never rejects. Sent at once, as `runIdempotent`'s `prefetch`: both go out in the idempotency claim's round trip,
 * the children behind the lock (that statement's snapshot sees whatever the lock waited for).
 */
export type ParentRead = PromiseSettledResult<[Payment | undefined, PaymentChild[]]>;

export function readParent(tx: Tx, id: string): Promise<ParentRead> {
  if (!isId('payment', id)) return Promise.resolve({ status: 'fulfilled', value: [undefined, []] });
  return Promise.allSettled([Promise.all([lockPayment(tx, id), findChildren(tx, id)])]).then(([read]) => read!);
}

/** The parent `readParent` read: 404 unknown (or not a payment id), 403 another account's, both at `parentPaymentId`. */
export function lockedParent(ctx: ServiceContext, id: string, read: ParentRead): LockedParent {
  const [locked, children] = settledValue(read);
  const parent = ownedBy(locked, ctx, 'payment', id, { pointer: childPointers.parentPaymentId });
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
 * What every operation on a parent writes, in the caller's transaction, as its last writes (`OperationResult`'s
 * `writes`, sent as one statement with the stored answer): the child record (a payment resource of its own,
 * fee-free: gross = net = amount), its balanced ledger posting if money moves, the parent's status change through
 * the state table (under the parent's row lock), and the outbox events (`payment.created` for the record, the
 * parent's own event; that one is its own statement, sent at once: its sequence is counted on).
 */
export function recordChildOperation(
  ctx: ServiceContext,
  { parent, children }: LockedParent,
  operation: ChildOperation,
): OperationResult {
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
  const { payment: child, part: insertChild } = paymentInsertPart(values);
  const writes: Part[] = [insertChild];
  if (posting) {
    const postings = postingsPart([
      {
        accountId: ctx.accountId,
        paymentId: posting.paymentId ?? child.id,
        merchantId: parent.merchantId,
        kind: posting.kind,
        lines: posting.lines,
        now,
        // What stays pending settles with the child's own record, or with the parent's when it is carried along.
        availableOn: posting.availableOn ?? child.settleAt ?? parent.settleAt ?? now,
      },
    ]);
    writes.push(...postings.parts);
    // A void cancels the capture before it settles: neither is left pending (they net zero in available). The
    // void's own balance transactions are written `available`, so the capture's are the only ones this turns.
    if (posting.kind === 'void') writes.push(makeAvailablePart([{ sourceId: parent.id, at: now }]));
  }

  const resource = paymentResource(child, [], now);
  writes.push(
    ...firstEventsParts([
      { accountId: ctx.accountId, type: 'payment.created', resource, previousStatus: null, requestId: ctx.requestId },
    ]),
  );
  const pending: Sent<unknown>[] = [];
  if (parentChange) {
    const { to, set } = parentChange;
    const transition = transitionPart({ payment: parent, to, at: now, set });
    writes.push(transition.part);
    pending.push(
      sendEvents(ctx.db, [
        {
          accountId: ctx.accountId,
          type: parentEvents[to],
          resource: paymentResource(transition.payment, [...children, child], now),
          previousStatus: parent.status,
          requestId: ctx.requestId,
        },
      ]),
    );
  }
  ctx.log.info(
    { paymentId: child.id, parentPaymentId: parent.id, paymentType: child.paymentType, amount: child.amount },
    `${child.refundType ?? child.paymentType} recorded`,
  );
  return {
    status: 201,
    body: paymentDocument(ctx.config.PUBLIC_BASE_URL, resource),
    paymentId: child.id,
    writes,
    pending,
  };
}
