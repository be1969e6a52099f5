import { ApiError } from '@pps/shared/http';

export const tokenPointers = {
  number: '/data/attributes/card/number',
  expiry: '/data/attributes/card/expiry',
  code: '/data/attributes/card/code',
  customerId: '/data/attributes/customerId',
} as const;

export const tokenErrors = {
  notFound: (id: string) => new ApiError({ status: 404, code: 'token_not_found', detail: `No vault token ${id}` }),
  forbidden: (id: string) =>
    new ApiError({ status: 403, code: 'token_forbidden', detail: `Vault token ${id} belongs to another account` }),
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
  listCustomerNotFound: (id: string) =>
    new ApiError({ status: 400, code: 'customer_not_found', detail: `No customer ${id}`, parameter: 'customerId' }),
  listCustomerForbidden: (id: string) =>
    new ApiError({
      status: 403,
      code: 'customer_forbidden',
      detail: `Customer ${id} belongs to another account`,
      parameter: 'customerId',
    }),
};
