import { ApiError } from '@pps/shared/http';

export const pointers = {
  merchantId: '/data/attributes/merchantId',
  splitMerchantId: '/data/attributes/split/merchantId',
  splitAmount: '/data/attributes/split/amount',
  amount: '/data/attributes/transaction/amount',
  tokenId: '/data/attributes/token/tokenId',
  paymentMethodToken: '/data/attributes/paymentMethod/token',
  bankAccountNumber: '/data/attributes/bank/accountNumber',
} as const;

/** The outcome of the processor that the client sees on a failed payment (error document `meta.transaction`). */
export type FailedTransaction = { code: string; message: string; avsResult: string | null };

export const paymentErrors = {
  merchantNotActive: (id: string, status: string, pointer: string) =>
    new ApiError({
      status: 422,
      code: 'merchant_not_active',
      detail: `Merchant ${id} is ${status}; only active merchants take payments`,
      pointer,
    }),
  splitSameMerchant: () =>
    new ApiError({
      status: 400,
      code: 'invalid_split_merchant',
      detail: 'split.merchantId must be another merchant than the primary merchantId',
      pointer: pointers.splitMerchantId,
    }),
  splitTooLarge: (max: number) =>
    new ApiError({
      status: 400,
      code: 'invalid_split_amount',
      detail:
        max > 0
          ? `split.amount must be at most ${max} cents (the amount less its fees)`
          : 'split.amount leaves nothing for the primary merchant: the fees take the whole amount',
      pointer: pointers.splitAmount,
    }),
  amountBelowFees: (fees: number) =>
    new ApiError({
      status: 400,
      code: 'amount_below_fees',
      detail: `amount must cover the merchant's fees of ${fees} cents`,
      pointer: pointers.amount,
    }),
  tokenNotFound: (pointer: string) =>
    new ApiError({
      status: 400,
      code: 'token_not_found',
      detail: 'No vault token with this id in this account',
      pointer,
    }),
  cardDeclined: (paymentId: string, transaction: FailedTransaction) =>
    new ApiError({
      status: 402,
      code: 'card_declined',
      detail: `The card was declined: ${transaction.message} (code ${transaction.code})`,
      meta: { paymentId, transaction },
    }),
  avsMismatch: (paymentId: string, transaction: FailedTransaction, avsMode: string) =>
    new ApiError({
      status: 422,
      code: 'avs_mismatch',
      detail: `Address verification failed (AVS result ${transaction.avsResult ?? 'none'}); the merchant's ${avsMode} AVS mode refuses it`,
      meta: { paymentId, transaction },
    }),
  achRefused: (paymentId: string, transaction: FailedTransaction) =>
    new ApiError({
      status: 422,
      code: 'insufficient_funds',
      detail: `The bank account cannot cover the debit: ${transaction.message} (${transaction.code})`,
      pointer: pointers.bankAccountNumber,
      meta: { paymentId, transaction },
    }),
  processingAbandoned: (paymentId: string, transaction: FailedTransaction) =>
    new ApiError({
      status: 402,
      code: 'processing_abandoned',
      detail:
        'The payment was interrupted before the processor answered, and the processor has no record of it; it was not made',
      meta: { paymentId, transaction },
    }),
  invalidMerchantId: (detail: string, parameter: 'id' | 'merchantId' = 'id') =>
    new ApiError({ status: 400, code: 'invalid_merchant_id', detail, parameter }),
  /** GET /payments?amountGte=&amountLte=: a range whose end is below its start matches nothing by mistake. */
  amountRange: () =>
    new ApiError({
      status: 400,
      code: 'invalid_field',
      detail: 'amountLte must not be less than amountGte',
      parameter: 'amountLte',
    }),
  /** GET /payments names its merchant by `id` or `merchantId`: two different ones is no one list. */
  twoMerchants: (id: string, merchantId: string) =>
    new ApiError({
      status: 400,
      code: 'invalid_field',
      detail: `id (${id}) and merchantId (${merchantId}) name different merchants; give one`,
      parameter: 'merchantId',
    }),
};

/** The error document as the service's error mapper writes it, for responses stored with an idempotency key. */
export const errorDocumentBody = (error: ApiError, requestId: string) => ({
  errors: error.toObjects(),
  meta: { requestId, ...error.meta },
});
