import type { PaymentInputOf } from '@pps/shared/contract';
import type { FieldCipher } from '@pps/shared/crypto';
import { type Admission, settledValue } from '@pps/shared/db';
import { type ServiceContext, wallClockNow } from '@pps/shared/http';
import { newId } from '@pps/shared/ids';
import { PROCESSING } from '@pps/shared/states';
import type { Claims } from '../idempotency/claims';
import type { Phased } from '../idempotency/idempotency';
import type { CardAuthorizationRequest, Processor, ProcessorAnswer } from '../processor/processor';
import { loadCardForCharge } from '../tokens/tokens.repository';
import { paymentErrors, pointers } from './payments.errors';
import type { NewPayment } from './payments.repository';
import { activeMerchant, moneyColumns, priceOf } from './pricing';
import { type OutcomeRecorder, processingRecord } from './record-payment';

export type CardPaymentInput = PaymentInputOf<'tokenv3'> | PaymentInputOf<'tokenv3Split'> | PaymentInputOf<'card'>;
/** The processor, the vault's cipher, the turn new payments take, and the group commits of phases 1 and 3. */
export type ChargeDeps = {
  processor: Processor;
  cipher: FieldCipher;
  admission: Admission;
  claims: Claims<NewPayment>;
  outcomes: OutcomeRecorder;
};

/**
 * The reads of a charge (the merchants and the vault token), sent together: one round trip. Settled, never rejected:
 * `beginCharge` judges them in order.
 */
function readsForCharge(ctx: ServiceContext, input: CardPaymentInput, deps: ChargeDeps) {
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

/**
 * tokenv3, tokenv3Split and card, phase 1 (docs/design.md, Idempotency and concurrency): checks the merchants and the
 * vault token (`reads`) and prices the charge, in the caller's transaction (`ctx.db`); the record goes in
 * `processing`. Phase 2 authorises with the processor, outside any transaction; phase 3 records the outcome
 * (`recordOutcomes`): approved, `pending` with its capture posting and `payment.created`; declined or AVS-refused,
 * `failed` and `payment.failed`, answered 402/422.
 */
export async function beginCharge({
  ctx,
  input,
  deps,
}: {
  ctx: ServiceContext;
  input: CardPaymentInput;
  deps: ChargeDeps;
}): Promise<Phased<ProcessorAnswer>> {
  const split = input.paymentType === 'tokenv3Split' ? input.split : undefined;
  const byVault = input.paymentType === 'card';
  const tokenId = byVault ? input.paymentMethod.token : input.token.tokenId;
  // Judged in the order they always were.
  const [primary, splitMerchant, card] = await readsForCharge(ctx, input, deps);
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
  const payment: NewPayment = {
    id: newId('payment'),
    accountId: ctx.accountId,
    merchantId: merchant.id,
    paymentType: 'card',
    requestType: input.paymentType,
    status: PROCESSING,
    ...moneyColumns(price, input.transaction),
    splitMerchantId: split?.merchantId ?? null,
    splitAmount: split?.amount ?? null,
    code: '',
    message: '',
    tokenId,
    card: { brand: vault.card.brand, last4: vault.card.last4, expiry: charge.expiry, holder: charge.holder },
    billingAddress: charge.billingAddress,
    avsRequested: charge.useAVS,
    miscData: input.miscData ?? null,
    requestId: ctx.requestId,
    createdAt: now,
    updatedAt: now,
  };
  const request: CardAuthorizationRequest = {
    paymentId: payment.id,
    card: { number: vault.card.number, expiry: charge.expiry, holder: charge.holder },
    amount: price.gross,
    billingAddress: charge.billingAddress,
    now,
  };
  return {
    paymentId: payment.id,
    claim: (key) =>
      deps.claims.submit({ key, recordId: payment.id, record: processingRecord(payment, wallClockNow(ctx)) }),
    call: async () => ({ rail: 'card', authorization: await deps.processor.authorizeCard(request) }),
    // Recorded as of its creation: the processor call is part of making it (the record reads as made at once).
    record: (answer) => deps.outcomes.submit({ claimed: payment, answer, now }),
  };
}
