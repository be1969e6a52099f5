import type { PaymentInputOf } from '@pps/shared/contract';
import type { ServiceContext } from '@pps/shared/http';
import { entriesForPayment, refundLines, reverseLines } from '@pps/shared/ledger';
import { disputedAmount, isParentRecord, refundFigures, statusAfterRefund, voidableUntil } from '../model/refund-rules';
import { captureErrors } from './captures.errors';
import {
  assertAcceptsRefunds,
  assertSameCurrency,
  bucketOf,
  type ChildOutcome,
  type LockedParent,
  railOf,
  recordChildOperation,
  refundSettleAt,
} from './child-operation';
import { refundErrors } from './refunds.errors';

export type RefundInput = PaymentInputOf<'refund'>;

/**
 * `refund`: the service chooses (docs/design.md). A full-amount refund of a card payment still inside its Pacific
 * void window and untouched is a **void**: the capture is reversed entry by entry (fees and split shares
 * included), the parent becomes `voided`, the record is `completed`. Anything else is a **refund** of the
 * primary merchant's share: fees are kept, the record is `pending` until settlement, the parent becomes
 * `partial_refund` or `refunded`. A refund of an authorization cancels it (`cancelAuthorization`). Runs in the
 * caller's transaction, under the parent's row lock.
 */
export async function refundPayment({
  ctx,
  input,
  locked,
}: {
  ctx: ServiceContext;
  input: RefundInput;
  /** The parent, under its row lock, and its children. */
  locked: LockedParent;
}): Promise<ChildOutcome> {
  const { parent, children } = locked;
  if (parent.status === 'authorized' && isParentRecord(parent)) return cancelAuthorization(ctx, locked, input);
  assertAcceptsRefunds(parent);
  assertSameCurrency(parent, input.transaction.currency);
  const amount = input.transaction.amount;
  const now = ctx.clock.now();
  const disputed = disputedAmount(parent);
  if (amount === parent.gross && voidableUntil(parent, children, now)) {
    if (parent.disputes?.length) throw refundErrors.disputed(parent.id, disputed);
    return voidPayment(ctx, locked, input, now);
  }

  const figures = refundFigures(parent, children);
  if (amount > figures.refundable) {
    // What the refund asks for was taken back by a chargeback already: a 422 naming the dispute, not a 400.
    if (disputed > 0 && amount <= figures.refundable + disputed) throw refundErrors.disputed(parent.id, disputed);
    throw refundErrors.refundExceeds(figures.refundable, "payment's refundable amount");
  }
  return recordChildOperation(ctx, locked, {
    record: {
      paymentType: 'refund',
      refundType: 'refund',
      status: 'pending',
      amount,
      message: 'Refund accepted',
      settleAt: refundSettleAt(ctx, parent, now),
      miscData: input.miscData,
    },
    posting: {
      kind: 'refund',
      lines: refundLines({ rail: railOf(parent), merchantId: parent.merchantId, amount, bucket: bucketOf(parent) }),
    },
    parentChange: { to: statusAfterRefund(parent, figures, amount) },
  });
}

/**
 * A refund of an authorization cancels it, whole (docs/design.md, Authorize now, capture later): a void record,
 * the parent `voided` (`voidReason` `cancelled`), no posting (an authorization moved no money). Another amount is a
 * 400: an authorization is released by capturing less, not refunded in part.
 */
async function cancelAuthorization(ctx: ServiceContext, locked: LockedParent, input: RefundInput) {
  const { parent } = locked;
  assertSameCurrency(parent, input.transaction.currency);
  if (input.transaction.amount !== parent.amount) throw captureErrors.partialCancel(parent.amount);
  return recordChildOperation(ctx, locked, {
    record: {
      paymentType: 'refund',
      refundType: 'void',
      status: 'completed',
      amount: parent.amount,
      message: 'Authorization cancelled',
      miscData: input.miscData,
    },
    parentChange: { to: 'voided', set: { voidedAt: ctx.clock.now(), voidReason: 'cancelled' } },
  });
}

async function voidPayment(ctx: ServiceContext, locked: LockedParent, input: RefundInput, now: Date) {
  const capture = (await entriesForPayment(ctx.db, locked.parent.id)).filter((entry) => entry.kind === 'capture');
  return recordChildOperation(ctx, locked, {
    record: {
      paymentType: 'refund',
      refundType: 'void',
      status: 'completed',
      amount: locked.parent.gross,
      message: 'Voided',
      miscData: input.miscData,
    },
    posting: { kind: 'void', lines: reverseLines(capture) },
    parentChange: { to: 'voided', set: { voidedAt: now } },
  });
}
