import { ownedBy, type ServiceContext } from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import { computeFees, maxSplitAmount, netOf } from '@pps/shared/money';
import { paymentErrors } from './payments.errors';
import { findMerchant, type MerchantForPayment } from './payments.repository';

/** A merchant of this account that may take payments, else the error for `pointer` (docs/design.md). */
export async function activeMerchant(ctx: ServiceContext, id: string, pointer: string): Promise<MerchantForPayment> {
  // An id that cannot be ours is not looked up.
  const found = isId('merchant', id) ? await findMerchant(ctx.db, id) : undefined;
  return judgeMerchant(ctx, found, id, pointer);
}

/** The merchant `id` as read (`found`), if it is this account's and may take payments; else the error for `pointer`. */
export function judgeMerchant(
  ctx: ServiceContext,
  found: MerchantForPayment | undefined,
  id: string,
  pointer: string,
): MerchantForPayment {
  const merchant = ownedBy(found, ctx, 'merchant', id, { pointer });
  if (merchant.status !== 'active') throw paymentErrors.merchantNotActive(id, merchant.status, pointer);
  return merchant;
}

/** The money of the payment: fees by the merchant's pricing (config defaults otherwise), the split, the net. */
export function priceOf(ctx: ServiceContext, merchant: MerchantForPayment, amount: number, split: number | undefined) {
  const rateBasisPoints = merchant.feeRateBasisPoints ?? ctx.config.FEE_RATE_BASIS_POINTS;
  const fees = computeFees({
    amount,
    rateBasisPoints,
    fixedCents: merchant.feeFixedCents ?? ctx.config.FEE_FIXED_CENTS,
  });
  if (fees.grossMinusNet > fees.gross) throw paymentErrors.amountBelowFees(fees.grossMinusNet);
  if (split !== undefined && split > maxSplitAmount(fees)) throw paymentErrors.splitTooLarge(maxSplitAmount(fees));
  const net = netOf({
    gross: fees.gross,
    grossMinusNet: fees.grossMinusNet,
    splits: split === undefined ? [] : [split],
  });
  return { ...fees, rateBasisPoints, net };
}

/** The money columns of a new payment record: the priced amount and the pricing in force when it was made. */
export const moneyColumns = (
  price: ReturnType<typeof priceOf>,
  transaction: { currency: string; invoice: string },
) => ({
  amount: price.gross,
  currency: transaction.currency,
  invoice: transaction.invoice,
  gross: price.gross,
  feeFixed: price.fee,
  rateBasisPoints: price.rateBasisPoints,
  grossMinusNet: price.grossMinusNet,
  net: price.net,
});
