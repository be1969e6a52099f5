import { settleAtFor } from '@pps/shared/clock';
import type { PaymentInputOf } from '@pps/shared/contract';
import type { ServiceContext } from '@pps/shared/http';
import { newId } from '@pps/shared/ids';
import { captureLines } from '@pps/shared/ledger';
import type { OperationResult } from '../idempotency/idempotency';
import type { ChargeDeps } from '../payments/charge-card.usecase';
import { paymentErrors, pointers } from '../payments/payments.errors';
import type { NewPayment } from '../payments/payments.repository';
import { activeMerchant, moneyColumns, priceOf } from '../payments/pricing';
import { recordNewPayment } from '../payments/record-payment';

export type AchInput = PaymentInputOf<'ACH'>;

/**
 * `ACH`: a debit of the customer's bank account for the merchant (docs/design.md). Accepted: a `pending` payment that
 * settles ACH_SETTLEMENT_BUSINESS_DAYS business days out (or is returned R01–R04 then), its capture posting on the
 * ACH rail and `payment.created`. Refused at once (the sandbox's insufficient-funds account): a `failed` payment,
 * `payment.failed`, answered 422 (returned, not thrown, so the record and the idempotency key commit).
 * The account and routing numbers are kept encrypted for the NACHA entry; responses show their last four digits.
 */
export async function debitAch({
  ctx,
  input,
  deps,
}: {
  ctx: ServiceContext;
  input: AchInput;
  deps: ChargeDeps;
}): Promise<OperationResult> {
  const merchant = await activeMerchant(ctx, input.merchantId, pointers.merchantId);
  const price = priceOf(ctx, merchant, input.transaction.amount, undefined);
  const { accountNumber, routingNumber } = input.bank;
  const id = newId('payment');
  const outcome = await deps.processor.debitAch({ paymentId: id, accountNumber, routingNumber, amount: price.gross });
  const now = ctx.clock.now();

  const payment: NewPayment = {
    id,
    accountId: ctx.accountId,
    merchantId: merchant.id,
    paymentType: 'ACH',
    requestType: 'ACH',
    status: outcome.accepted ? 'pending' : 'failed',
    ...moneyColumns(price, input.transaction),
    code: outcome.code,
    message: outcome.message,
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
    settleAt: outcome.accepted ? settleAtFor(now, ctx.config.ACH_SETTLEMENT_BUSINESS_DAYS) : null,
    failedAt: outcome.accepted ? null : now,
    requestId: ctx.requestId,
    createdAt: now,
    updatedAt: now,
  };

  if (outcome.accepted) {
    const capture = captureLines({ rail: 'ach', merchantId: merchant.id, ...price });
    return recordNewPayment(ctx, payment, { approved: true, capture });
  }
  const error = paymentErrors.achRefused(payment.id, { code: outcome.code, message: outcome.message, avsResult: null });
  return recordNewPayment(ctx, payment, { approved: false, error });
}
