import type { PaymentInputOf } from '@pps/shared/contract';
import type { FieldCipher } from '@pps/shared/crypto';
import { type Admission, Batcher, type BatcherOptions, type Db } from '@pps/shared/db';
import type { ServiceContext } from '@pps/shared/http';
import { isId, newId } from '@pps/shared/ids';
import { PROCESSING } from '@pps/shared/states';
import type { CardAuthorizationRequest, ProcessorAnswer } from '../../processor/processor';
import { type ChargeableCard, loadCardsForCharge } from '../../tokens/tokens.repository';
import { paymentErrors, pointers } from '../model/payments.errors';
import { findMerchants, type MerchantForPayment, type NewPayment } from '../model/payments.repository';
import { judgeMerchant, moneyColumns, priceOf } from '../model/pricing';
import { authenticateAndAuthorize, authorizeCard, type PhaseDeps, phasesOf } from './phases';
import type { Phased } from './run-in-phases';

export type CardPaymentInput = PaymentInputOf<'tokenv3'> | PaymentInputOf<'tokenv3Split'> | PaymentInputOf<'card'>;
/**
 * The processor, the vault's cipher, the turn new payments take, the checks' group reads and the group commits of
 * phases 1 and 3.
 */
export type ChargeDeps = PhaseDeps & { cipher: FieldCipher; admission: Admission; reads: ChargeReader };

/** What a charge's checks read: its merchants (primary, and split if another) and its vault token's card. */
type ChargeReadItem = { merchantIds: string[]; accountId: string; tokenId: string };
type ChargeReads = { merchants: Map<string, MerchantForPayment>; card: ChargeableCard | undefined };

/** The checks' reads of concurrent charges, batched (group reads): one statement for the merchants, one for the cards. */
export type ChargeReader = Batcher<ChargeReadItem, ChargeReads>;

export function chargeReader(db: Db, cipher: FieldCipher, options: BatcherOptions): ChargeReader {
  return new Batcher(async (items) => {
    const [merchants, cards] = await Promise.all([
      findMerchants(
        db,
        items.flatMap((item) => item.merchantIds),
      ),
      loadCardsForCharge(db, cipher, items),
    ]);
    return items.map((_, index) => ({ merchants, card: cards[index] }));
  }, options);
}

/**
 * tokenv3, tokenv3Split and card, the checks before phase 1 (docs/design.md, Idempotency and concurrency): reads
 * the merchants and the vault token (`deps.reads`, batched with concurrent charges'), judges them in the order they
 * always were and prices the charge. Its phases (`phasesOf`): phase 1 claims the key and the record `processing`;
 * phase 2 authorises with the processor, outside any transaction (`authorizeCard`); phase 3 records the outcome: approved, `pending` with
 * its capture posting and `payment.created`; declined or AVS-refused, `failed` and `payment.failed`, answered
 * 402/422.
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
  // An id that cannot be a merchant's is not looked up.
  const merchantIds = [input.merchantId, ...(split ? [split.merchantId] : [])].filter((id) => isId('merchant', id));
  const reads = await deps.reads.submit({ merchantIds, accountId: ctx.accountId, tokenId });
  // Judged in the order they always were: the merchant, the split's, the token.
  const merchant = judgeMerchant(ctx, reads.merchants.get(input.merchantId), input.merchantId, pointers.merchantId);
  if (split?.merchantId === input.merchantId) throw paymentErrors.splitSameMerchant();
  if (split) judgeMerchant(ctx, reads.merchants.get(split.merchantId), split.merchantId, pointers.splitMerchantId);
  const vault = reads.card;
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
    captureRequested: input.capture !== false,
    authentication: input.authentication ?? null,
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
  const { authentication } = input;
  return phasesOf(
    deps,
    ctx,
    payment,
    now,
    authentication
      ? () => authenticateAndAuthorize(deps, request, authentication.mode)
      : () => authorizeCard(deps, request),
  );
}
