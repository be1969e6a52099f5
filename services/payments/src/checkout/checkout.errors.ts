import { ApiError } from '@pps/shared/http';

const CUSTOMER_POINTER = '/data/attributes/customerId';
const MERCHANT_POINTER = '/data/attributes/merchantId';

export const checkoutErrors = {
  notFound: (id: string) =>
    new ApiError({ status: 404, code: 'checkout_session_not_found', detail: `No checkout session ${id}` }),
  forbidden: (id: string) =>
    new ApiError({
      status: 403,
      code: 'checkout_session_forbidden',
      detail: `Checkout session ${id} belongs to another account`,
    }),
  expired: (id: string, expiresAt: Date) =>
    new ApiError({
      status: 422,
      code: 'checkout_session_expired',
      detail: `Checkout session ${id} expired at ${expiresAt.toISOString()}; create a new one`,
    }),
  tokenLimit: (id: string, max: number) =>
    new ApiError({
      status: 422,
      code: 'checkout_session_token_limit',
      detail: `Checkout session ${id} has made its ${max} vault tokens; create a new one`,
    }),
  /** The card POST reached the service without the gateway's check of this session's client secret. */
  notThisSession: () =>
    new ApiError({
      status: 401,
      code: 'invalid_client_secret',
      detail: 'The client secret is not the one of this checkout session',
    }),
  customerNotFound: (id: string) =>
    new ApiError({ status: 404, code: 'customer_not_found', detail: `No customer ${id}`, pointer: CUSTOMER_POINTER }),
  customerForbidden: (id: string) =>
    new ApiError({
      status: 403,
      code: 'customer_forbidden',
      detail: `Customer ${id} belongs to another account`,
      pointer: CUSTOMER_POINTER,
    }),
  merchantNotFound: (id: string) =>
    new ApiError({ status: 404, code: 'merchant_not_found', detail: `No merchant ${id}`, pointer: MERCHANT_POINTER }),
  merchantForbidden: (id: string) =>
    new ApiError({
      status: 403,
      code: 'merchant_forbidden',
      detail: `Merchant ${id} belongs to another account`,
      pointer: MERCHANT_POINTER,
    }),
};
