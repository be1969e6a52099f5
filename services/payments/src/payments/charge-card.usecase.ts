import { settleAtFor } from '@pps/shared/clock';
import type { PaymentInputOf } from '@pps/shared/contract';
import type { FieldCipher } from '@pps/shared/crypto';
import { settledValue } from '@pps/shared/db';
import type { ServiceContext } from '@pps/shared/http';
import { newId } from '@pps/shared/ids';
import { captureLines } from '@pps/shared/ledger';
import type { OperationResult } from '../idempotency/idempotency';
import { avsAccepted } from '../processor/avs-policy';
import type { Processor } from '../processor/processor';
import { loadCardForCharge } from '../tokens/tokens.repository';
import { type FailedTransaction, paymentErrors, pointers } from './payments.errors';
import type { NewPayment } from './payments.repository';
import { activeMerchant, moneyColumns, priceOf } from './pricing';
import { recordNewPayment } from './record-payment';

export type CardPaymentInput = PaymentInputOf<'tokenv3'> | PaymentInputOf<'tokenv3Split'> | PaymentInputOf<'card'>;
export type ChargeDeps = { processor: Processor; cipher: FieldCipher };

/** The API's success code (the processor's own approval code is not shown). */
const APPROVED_CODE = '0';
/** How the payment record reads when the issuer approved but the merchant's AVS policy refuses the result. */
const AVS_REFUSED = { code: 'AVS', message: 'Address verification failed' } as const;

/**
 * The reads of a charge (the merchants and the vault token), sent together: one round trip, behind the idempotency
 * claim when `runIdempotent` prefetches them. Settled, never rejected: `chargeCard` judges them in order.
 */
export function readsForCharge(ctx: ServiceContext, input: CardPaymentInput, deps: ChargeDeps) {
  const split = input.paymentType === 'tokenv3Split' ? input.split : undefined;
  const tokenId = input.paymentType === 'card' ? input.paymentMethod.token : input.token.tokenId;
  return Promise.allSettled([
    activeMerchant(ctx, input.merchantId, pointers.merchantId),
    split && split.merchantId !== input.merchantId
      ? activeMerchant(ctx, split.merchantId, pointers.splitMerchantId)
      : undefined,
    loadCardForCharge(ctx.db, deps.cipher, { accountId: ctx.accountId, tokenId }),
  ]);
}
export type ChargeReads = Awaited<ReturnType<typeof readsForCharge>>;

/**
 * tokenv3, tokenv3Split and card: checks the merchants and the vault token (`reads`), authorizes with the
 * processor and records the outcome. Approved: a `pending` payment, its capture posting and `payment.created`.
 * Declined or AVS-refused: a `failed` payment and `payment.failed`, answered 402/422 (returned, not thrown, so the
 * record and the idempotency key commit). Runs inside the caller's transaction (`ctx.db`).
 */
export async function chargeCard({
  ctx,
  input,
  deps,
  reads,
}: {
  ctx: ServiceContext;
  input: CardPaymentInput;
  deps: ChargeDeps;
  /** Prefetched by the caller, else read now. */
  reads?: ChargeReads;
}): Promise<OperationResult> {
  const split = input.paymentType === 'tokenv3Split' ? input.split : undefined;
  const byVault = input.paymentType === 'card';
  const tokenId = byVault ? input.paymentMethod.token : input.token.tokenId;
  // Judged in the order they always were.
  const [primary, splitMerchant, card] = reads ?? (await readsForCharge(ctx, input, deps));
  const merchant = settledValue(primary);
  if (split?.merchantId === input.merchantId) throw paymentErrors.splitSameMerchant();
  settledValue(splitMerchant);
  const vault = settledValue(card);
  if (!vault) throw paymentErrors.tokenNotFound(byVault ? pointers.paymentMethodToken : pointers.tokenId);
  const price = priceOf(ctx, merchant, input.transaction.amount, split?.amount);

  // tokenv3: the request's holder, expiry and address; card: the vault's, with AVS when the vault has a ZIP.
  const charge = byVault
    ? {
        holder: vault.card.holder,
        expiry: vault.card.expiry,
        billingAddress: vault.billingAddress,
        useAVS: Boolean(vault.billingAddress?.zip),
      }
    : {
        holder: input.token.holder,
        expiry: input.token.expiry,
        billingAddress: input.billingAddress ?? null,
        useAVS: input.token.useAVS,
      };
  const now = ctx.clock.now();
  const id = newId('payment');
  const result = await deps.processor.authorizeCard({
    paymentId: id,
    card: { number: vault.card.number, expiry: charge.expiry, holder: charge.holder },
    amount: price.gross,
    billingAddress: charge.billingAddress,
    now,
  });
  const approved = result.approved && avsAccepted(result.avsResult, merchant.avsMode, charge.useAVS);
  const outcome = approved
    ? { code: APPROVED_CODE, message: result.message }
    : result.approved
      ? AVS_REFUSED
      : { code: result.code, message: result.message };

  const payment: NewPayment = {
    id,
    accountId: ctx.accountId,
    merchantId: merchant.id,
    paymentType: 'card',
    requestType: input.paymentType,
    status: approved ? 'pending' : 'failed',
    ...moneyColumns(price, input.transaction),
    splitMerchantId: split?.merchantId ?? null,
    splitAmount: split?.amount ?? null,
    code: outcome.code,
    message: outcome.message,
    authCode: approved ? result.authCode : null,
    avsResult: result.avsResult ?? null,
    tokenId,
    card: {
      brand: result.brand ?? vault.card.brand,
      last4: result.last4 ?? vault.card.last4,
      expiry: charge.expiry,
      holder: charge.holder,
    },
    billingAddress: charge.billingAddress,
    miscData: input.miscData ?? null,
    settleAt: approved ? settleAtFor(now, ctx.config.CARD_SETTLEMENT_BUSINESS_DAYS) : null,
    failedAt: approved ? null : now,
    requestId: ctx.requestId,
    createdAt: now,
    updatedAt: now,
  };

  if (approved) {
    const capture = captureLines({ rail: 'card', merchantId: merchant.id, ...price, split });
    return recordNewPayment(ctx, payment, { approved: true, capture });
  }
  const failure: FailedTransaction = {
    code: outcome.code,
    message: outcome.message,
    avsResult: payment.avsResult ?? null,
  };
  const error = result.approved
    ? paymentErrors.avsMismatch(payment.id, failure, merchant.avsMode)
    : paymentErrors.cardDeclined(payment.id, failure);
  return recordNewPayment(ctx, payment, { approved: false, error });
}
