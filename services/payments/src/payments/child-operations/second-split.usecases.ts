import type { PaymentInputOf } from '@pps/shared/contract';
import type { ServiceContext } from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import { secondSplitLines } from '@pps/shared/ledger';
import { PROCESSING } from '@pps/shared/states';
import { paymentErrors, pointers } from '../model/payments.errors';
import { findMerchants } from '../model/payments.repository';
import { judgeMerchant } from '../model/pricing';
import { isParentRecord, refundFigures } from '../model/refund-rules';
import { bucketOf, type ChildOutcome, type LockedParent, recordChildOperation } from './child-operation';
import { refundErrors } from './refunds.errors';

export type SecondSplitInput = PaymentInputOf<'secondSplit'>;

const SPLITTABLE = new Set(['pending', 'completed', 'partial_refund']);

/**
 * `secondSplit`: moves part of the primary merchant's remaining net to another active merchant of the account
 * (docs/design.md). Needs the operator's per-merchant flag on the primary; the amount must stay below the remaining
 * net (net − second splits − refunds). Only balances move: the record is `completed` at once and the parent's
 * status is unchanged. Runs in the caller's transaction, under the parent's row lock.
 */
export async function secondSplit({
  ctx,
  input,
  locked,
}: {
  ctx: ServiceContext;
  input: SecondSplitInput;
  /** The parent, under its row lock, and its children. */
  locked: LockedParent;
}): Promise<ChildOutcome> {
  const { parent, children } = locked;
  if (!isParentRecord(parent)) throw refundErrors.childRecord(parent.id, parent.paymentType);
  if (parent.paymentType !== 'card') throw refundErrors.notSplittable(parent.id, 'is an ACH payment');
  if (!SPLITTABLE.has(parent.status)) {
    // `processing` is internal (a new payment waiting for its processor): named as it is served.
    const status = parent.status === PROCESSING ? 'pending, awaiting the processor' : parent.status;
    throw refundErrors.notSplittable(parent.id, `is ${status}`);
  }
  const { merchantId, amount } = input.split;
  // Both merchants in one statement (an id that cannot be a merchant's is not looked up), judged in turn.
  const merchants = await findMerchants(ctx.db, [
    parent.merchantId,
    ...(isId('merchant', merchantId) ? [merchantId] : []),
  ]);
  if (!merchants.get(parent.merchantId)?.features.secondSplit) {
    throw refundErrors.secondSplitNotEnabled(parent.merchantId);
  }
  if (merchantId === parent.merchantId) throw paymentErrors.splitSameMerchant();
  judgeMerchant(ctx, merchants.get(merchantId), merchantId, pointers.splitMerchantId);
  const { remainingNet } = refundFigures(parent, children);
  if (amount >= remainingNet) throw refundErrors.secondSplitAmount(remainingNet);

  return recordChildOperation(ctx, locked, {
    record: {
      paymentType: 'secondSplit',
      status: 'completed',
      amount,
      message: 'Second split completed',
      splitMerchantId: merchantId,
      miscData: input.miscData,
    },
    posting: {
      kind: 'second_split',
      lines: secondSplitLines({
        fromMerchantId: parent.merchantId,
        toMerchantId: merchantId,
        amount,
        bucket: bucketOf(parent),
      }),
    },
  });
}
