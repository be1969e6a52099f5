import { ApiError } from '@pps/shared/http';

export const checkoutPointers = {
  customerId: '/data/attributes/customerId',
  merchantId: '/data/attributes/merchantId',
} as const;

export const checkoutErrors = {
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
};
