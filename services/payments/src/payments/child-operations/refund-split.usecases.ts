import type { PaymentInputOf } from '@pps/shared/contract';
import type { ServiceContext } from '@pps/shared/http';
import { refundLines } from '@pps/shared/ledger';
import { refundFigures, statusAfterRefund } from '../model/refund-rules';
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

export type RefundSplitInput = PaymentInputOf<'refundSplit'>;

/**
 * `refundSplit`: refunds part of the first split's share, out of the split merchant's balance (docs/design.md).
 * It counts towards the parent's refunded total, not against the primary's refundable amount; the record is
 * `pending` until settlement. Runs in the caller's transaction, under the parent's row lock.
 */
export async function refundSplit({
  ctx,
  input,
  locked,
}: {
  ctx: ServiceContext;
  input: RefundSplitInput;
  /** The parent, under its row lock, and its children. */
  locked: LockedParent;
}): Promise<ChildOutcome> {
  const { parent, children } = locked;
  assertAcceptsRefunds(parent);
  if (parent.splitMerchantId === null || parent.splitAmount === null) throw refundErrors.noSplit(parent.id);
  assertSameCurrency(parent, input.transaction.currency);
  const amount = input.transaction.amount;
  const figures = refundFigures(parent, children);
  if (amount > figures.splitRefundable)
    throw refundErrors.refundExceeds(figures.splitRefundable, "split merchant's remaining share");

  const now = ctx.clock.now();
  return recordChildOperation(ctx, locked, {
    record: {
      paymentType: 'refundSplit',
      status: 'pending',
      amount,
      message: 'Split refund accepted',
      splitMerchantId: parent.splitMerchantId,
      settleAt: refundSettleAt(ctx, parent, now),
      miscData: input.miscData,
    },
    posting: {
      kind: 'refund_split',
      lines: refundLines({
        rail: railOf(parent),
        merchantId: parent.splitMerchantId,
        amount,
        bucket: bucketOf(parent),
      }),
    },
    parentChange: { to: statusAfterRefund(parent, figures, amount) },
  });
}
