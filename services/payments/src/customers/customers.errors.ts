import { ApiError } from '@pps/shared/http';

const MERCHANT_POINTER = '/data/attributes/merchantId';

export const customerErrors = {
  notFound: (id: string) => new ApiError({ status: 404, code: 'customer_not_found', detail: `No customer ${id}` }),
  forbidden: (id: string) =>
    new ApiError({ status: 403, code: 'customer_forbidden', detail: `Customer ${id} belongs to another account` }),
  merchantNotFound: (id: string) =>
    new ApiError({ status: 400, code: 'merchant_not_found', detail: `No merchant ${id}`, pointer: MERCHANT_POINTER }),
  merchantForbidden: (id: string) =>
    new ApiError({
      status: 403,
      code: 'merchant_forbidden',
      detail: `Merchant ${id} belongs to another account`,
      pointer: MERCHANT_POINTER,
    }),
  listMerchantNotFound: (id: string) =>
    new ApiError({ status: 400, code: 'merchant_not_found', detail: `No merchant ${id}`, parameter: 'merchantId' }),
  listMerchantForbidden: (id: string) =>
    new ApiError({
      status: 403,
      code: 'merchant_forbidden',
      detail: `Merchant ${id} belongs to another account`,
      parameter: 'merchantId',
    }),
};
