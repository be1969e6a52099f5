import { settleAtFor } from '@pps/shared/clock';
import type { PaymentInputOf } from '@pps/shared/contract';
import { writeEvent } from '@pps/shared/events';
import type { ServiceContext } from '@pps/shared/http';
import { newId } from '@pps/shared/ids';
import { captureLines, post } from '@pps/shared/ledger';
import type { OperationResult } from '../idempotency/idempotency';
import type { ChargeDeps } from '../payments/charge-card.usecase';
import { errorDocumentBody, paymentErrors, pointers } from '../payments/payments.errors';
import { paymentDocument, paymentResource } from '../payments/payments.presenter';
import { insertPayment } from '../payments/payments.repository';
import { activeMerchant, priceOf } from '../payments/pricing';

export type AchInput = PaymentInputOf<'ACH'>;

/**
 * `ACH`: a debit of the customer's bank account for the merchant (DESIGN §8). Accepted: a `pending` payment that
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
  const outcome = await deps.processor.debitAch({ accountNumber, routingNumber, amount: price.gross });
  const now = ctx.clock.now();

  const payment = await insertPayment(ctx.db, {
    id: newId('payment'),
    accountId: ctx.accountId,
    merchantId: merchant.id,
    paymentType: 'ACH',
    requestType: 'ACH',
    status: outcome.accepted ? 'pending' : 'failed',
    amount: price.gross,
    currency: input.transaction.currency,
    invoice: input.transaction.invoice,
    gross: price.gross,
    feeFixed: price.fee,
    rateBasisPoints: price.rateBasisPoints,
    grossMinusNet: price.grossMinusNet,
    net: price.net,
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
  });

  if (outcome.accepted) {
    await post(ctx.db, {
      accountId: ctx.accountId,
      paymentId: payment.id,
      kind: 'capture',
      lines: captureLines({
        rail: 'ach',
        merchantId: merchant.id,
        gross: price.gross,
        grossMinusNet: price.grossMinusNet,
      }),
      now,
    });
  }
  const resource = paymentResource(payment, [], now);
  await writeEvent(ctx.db, {
    accountId: ctx.accountId,
    type: outcome.accepted ? 'payment.created' : 'payment.failed',
    resource,
    previousStatus: null,
    requestId: ctx.requestId,
  });
  ctx.log.info(
    { paymentId: payment.id, merchantId: merchant.id, status: payment.status },
    outcome.accepted ? 'ACH debit accepted' : 'ACH debit refused',
  );

  if (outcome.accepted)
    return { status: 201, body: paymentDocument(ctx.config.PUBLIC_BASE_URL, resource), paymentId: payment.id };
  const error = paymentErrors.achRefused(payment.id, { code: outcome.code, message: outcome.message, avsResult: null });
  return { status: error.status, body: errorDocumentBody(error, ctx.requestId), paymentId: payment.id };
}
