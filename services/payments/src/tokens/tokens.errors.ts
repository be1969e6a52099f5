import { ApiError } from '@pps/shared/http';

export const tokenPointers = {
  number: '/data/attributes/card/number',
  expiry: '/data/attributes/card/expiry',
  code: '/data/attributes/card/code',
  customerId: '/data/attributes/customerId',
} as const;

export const tokenErrors = {
  cardExpired: (expiry: string) =>
    new ApiError({
      status: 400,
      code: 'card_expired',
      detail: `The card expired: ${expiry} (MMYY) is past`,
      pointer: tokenPointers.expiry,
    }),
  customerNotFound: (id: string) =>
    new ApiError({
      status: 400,
      code: 'customer_not_found',
      detail: `No customer ${id} in this account`,
      pointer: tokenPointers.customerId,
    }),
};
