import type { PaymentInputOf } from '@pps/shared/contract';
import type { ServiceContext } from '@pps/shared/http';
import { newId } from '@pps/shared/ids';
import { PROCESSING } from '@pps/shared/states';
import type { AchDebitRequest, ProcessorAnswer } from '../../processor/processor';
import { pointers } from '../model/payments.errors';
import type { NewPayment } from '../model/payments.repository';
import { activeMerchant, moneyColumns, priceOf } from '../model/pricing';
import type { ChargeDeps } from './charge-card.usecases';
import { debitAch, phasesOf } from './phases';
import type { Phased } from './run-in-phases';

export type AchInput = PaymentInputOf<'ACH'>;

/**
 * `ACH`, the checks before phase 1 (docs/design.md, Idempotency and concurrency): a debit of the customer's bank
 * account for the merchant, checked and priced. Its phases (`phasesOf`): phase 1 claims it `processing`; phase 2
 * asks the processor, outside any transaction (`debitAch`); phase 3 records the outcome (`recordOutcomes`). Accepted: a `pending` payment
 * that settles ACH_SETTLEMENT_BUSINESS_DAYS business days out (or is returned R01–R04 then), its capture posting on
 * the ACH rail and `payment.created`. Refused at once (the sandbox's insufficient-funds account): `failed`,
 * `payment.failed`, answered 422. The account and routing numbers are kept encrypted for the NACHA entry; responses
 * show their last four digits.
 */
export async function beginAchDebit({
  ctx,
  input,
  deps,
}: {
  ctx: ServiceContext;
  input: AchInput;
  deps: ChargeDeps;
}): Promise<Phased<ProcessorAnswer>> {
  const merchant = await activeMerchant(ctx, input.merchantId, pointers.merchantId);
  const price = priceOf(ctx, merchant, input.transaction.amount, undefined);
  const { accountNumber, routingNumber } = input.bank;
  const now = ctx.clock.now();
  const payment: NewPayment = {
    id: newId('payment'),
    accountId: ctx.accountId,
    merchantId: merchant.id,
    paymentType: 'ACH',
    requestType: 'ACH',
    status: PROCESSING,
    ...moneyColumns(price, input.transaction),
    code: '',
    message: '',
    bank: {
      bankName: input.bank.bankName,
      accountType: input.bank.accountType,
      accountName: input.bank.accountName,
      last4: accountNumber.slice(-4),
      routingLast4: routingNumber.slice(-4),
      standardEntryClassCode: input.StandardEntryClassCode,
    },
    bankAccountNumberEnc: deps.cipher.encrypt(accountNumber),
    bankRoutingNumberEnc: deps.cipher.encrypt(routingNumber),
    miscData: input.miscData ?? null,
    requestId: ctx.requestId,
    createdAt: now,
    updatedAt: now,
  };
  const request: AchDebitRequest = { paymentId: payment.id, accountNumber, routingNumber, amount: price.gross };
  return phasesOf(deps, ctx, payment, now, () => debitAch(deps, request));
}
