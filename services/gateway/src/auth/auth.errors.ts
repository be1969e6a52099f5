import { ApiError, unauthorized } from '@pps/shared/http';

export const authErrors = {
  missingApiKey: () => unauthorized('missing_api_key', 'The x-api-key header is required'),
  invalidApiKey: () => unauthorized('invalid_api_key', 'The x-api-key header does not match any account'),
  accountDisabled: () =>
    new ApiError({ status: 403, code: 'account_disabled', detail: 'This account is disabled; contact the operator' }),
  appNotOfAccount: () =>
    new ApiError({
      status: 403,
      code: 'app_not_authorized',
      detail: 'The appId does not belong to the account of this API key',
      pointer: '/data/attributes/appId',
    }),
  invalidAppKey: () =>
    new ApiError({
      status: 401,
      code: 'invalid_app_key',
      detail: 'The app key is not valid for this API key',
      pointer: '/data/attributes/appKey',
    }),
  supersededAppKey: () =>
    new ApiError({
      status: 401,
      code: 'app_key_superseded',
      detail: 'The app key has been superseded by a newer one; create a token with the newest app key',
      pointer: '/data/attributes/appKey',
    }),
  missingAuthorization: () =>
    unauthorized('missing_authorization', 'The Authorization header is required: Bearer <app token>'),
  malformedAuthorization: () =>
    unauthorized(
      'malformed_authorization',
      "The Authorization header must be exactly 'Bearer <app token>' (capital B, one space)",
    ),
  missingAppId: () => unauthorized('missing_app_id', 'The appId header is required'),
  invalidToken: () => unauthorized('invalid_token', 'The app token is malformed or its signature is not valid'),
  expiredToken: () => unauthorized('token_expired', 'The app token has expired; create a new one at POST /auth/token'),
  revokedToken: () =>
    unauthorized('token_revoked', 'The app token was minted from an app key that has since been replaced'),
  tokenOfOtherAccount: () =>
    unauthorized('token_account_mismatch', 'The app token was issued to another account than this API key'),
  tokenOfOtherApp: () =>
    unauthorized('token_app_mismatch', 'The app token was issued to another app than the appId header'),
  unknownApp: () => unauthorized('invalid_app_id', 'The appId header does not name an app of this account'),
};
