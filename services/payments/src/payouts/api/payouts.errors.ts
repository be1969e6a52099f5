import { ApiError } from '@pps/shared/http';

export const pointers = {
  merchantId: '/data/attributes/merchantId',
  amount: '/data/attributes/amount',
} as const;

export const payoutErrors = {
  merchantNotActive: (id: string, status: string) =>
    new ApiError({
      status: 422,
      code: 'merchant_not_active',
      detail: `Merchant ${id} is ${status}; only active merchants are paid out`,
      pointer: pointers.merchantId,
    }),
  insufficientAvailableBalance: (requested: number | undefined, available: number) =>
    new ApiError({
      status: 422,
      code: 'insufficient_available_balance',
      detail:
        requested === undefined
          ? `Nothing to pay out: the available balance is ${available} cents`
          : `amount ${requested} is more than the available balance of ${available} cents`,
      pointer: pointers.amount,
    }),
  noBankAccount: (id: string) =>
    new ApiError({
      status: 422,
      code: 'no_bank_account',
      detail: `Merchant ${id} has no bank account in force to pay out to`,
      pointer: pointers.merchantId,
    }),
  invalidMerchantId: (detail: string) =>
    new ApiError({ status: 400, code: 'invalid_merchant_id', detail, parameter: 'merchantId' }),
};
