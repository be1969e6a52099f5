import { settleAtFor } from '@pps/shared/clock';
import type { PaymentInputOf } from '@pps/shared/contract';
import type { ServiceContext } from '@pps/shared/http';
import { computeFees, maxSplitAmount, netOf } from '@pps/shared/money';
import { capturePosting } from '../model/capture-posting';
import type { Payment, PaymentChild } from '../model/payments.repository';
import { isParentRecord } from '../model/refund-rules';
import { captureErrors } from './captures.errors';
import { assertSameCurrency, type ChildOutcome, type LockedParent, recordChildOperation } from './child-operation';

export type CaptureInput = PaymentInputOf<'capture'>;

/**
 * `capture` (docs/design.md, Authorize now, capture later): an authorization (`capture: false`) captured for its
 * whole amount (no `transaction`) or less, the rest released. Under the parent's row lock, in the caller's
 * transaction: the parent becomes `pending` with its amount, fees and net on the captured amount (its pricing and
 * split as authorized), `capturedAt`, and a settlement date counted from the capture; the capture posting is written
 * for it, as a payment captured at once would have had; a `capture` record (`completed`) is its child; events
 * `payment.created` for the record and `payment.captured` for the parent.
 */
export async function capturePayment({
  ctx,
  input,
  locked,
}: {
  ctx: ServiceContext;
  input: CaptureInput;
  /** The parent, under its row lock, and its children. */
  locked: LockedParent;
}): Promise<ChildOutcome> {
  const { parent, children } = locked;
  const now = ctx.clock.now();
  assertCapturable(parent, children, now);
  if (input.transaction) assertSameCurrency(parent, input.transaction.currency);
  const amount = input.transaction?.amount ?? parent.amount;
  if (amount > parent.amount) throw captureErrors.exceedsAuthorization(parent.amount);

  const fees = computeFees({ amount, rateBasisPoints: parent.rateBasisPoints, fixedCents: parent.feeFixed });
  if (fees.grossMinusNet > fees.gross) throw captureErrors.belowFees(fees.grossMinusNet);
  const split = parent.splitAmount ?? 0;
  if (split > maxSplitAmount(fees)) throw captureErrors.belowSplit(split, maxSplitAmount(fees));
  const net = netOf({ gross: fees.gross, grossMinusNet: fees.grossMinusNet, splits: split > 0 ? [split] : [] });
  const settleAt = settleAtFor(now, ctx.config.CARD_SETTLEMENT_BUSINESS_DAYS);
  const captured = { amount, gross: fees.gross, grossMinusNet: fees.grossMinusNet, net, capturedAt: now, settleAt };

  return recordChildOperation(ctx, locked, {
    record: {
      paymentType: 'capture',
      status: 'completed',
      amount,
      message: amount < parent.amount ? 'Captured; the rest of the authorization released' : 'Captured',
      miscData: input.miscData,
    },
    posting: capturePosting({ ...parent, ...captured }, now, settleAt),
    parentChange: { to: 'pending', set: captured },
  });
}

/** The 422s of a payment that cannot be captured: lapsed (voided by the sweep or not yet), captured already, or not an authorization. */
function assertCapturable(parent: Payment, children: PaymentChild[], now: Date): void {
  if (parent.status === 'authorized' && isParentRecord(parent)) {
    if (parent.authorizationExpiresAt && now.getTime() >= parent.authorizationExpiresAt.getTime()) {
      throw captureErrors.expired(parent.id, parent.authorizationExpiresAt);
    }
    return;
  }
  // Voided by the expiry sweep: the same answer as one not swept yet, whichever ran first.
  if (parent.voidReason === 'authorization_expired' && parent.authorizationExpiresAt) {
    throw captureErrors.expired(parent.id, parent.authorizationExpiresAt);
  }
  if (children.some((child) => child.paymentType === 'capture')) throw captureErrors.alreadyCaptured(parent.id);
  // `processing` is internal (a new payment waiting for its processor): named as it is served.
  throw captureErrors.notAuthorized(parent.id, parent.status === 'processing' ? 'pending' : parent.status);
}
