import type { Clock } from '@pps/shared/clock';
import { belongsTo, type CallerContext } from '@pps/shared/http';
import type { VersionVariables } from '../versions/versioning';
import { type SigningKeys, verifyAppToken } from './app-token';
import { authErrors } from './auth.errors';
import type { AccountSnapshot, AuthCache } from './auth-cache';

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

type Headers = { get(name: string): string | null | undefined };

export type Authenticated = CallerContext & { account: AccountSnapshot; apiKey: string; tokenExpiresAt: Date };

/**
 * The Hono env of the gateway's requests: the request id, the caller once authenticated, and the body a forwarded
 * request carried (kept by `forward` for the request log, which reads it after the answer).
 */
export type GatewayEnv = {
  Variables: { requestId: string; caller: Authenticated; requestBody?: Uint8Array } & VersionVariables;
};

/**
 * The four-header check of every authenticated call. Each failure names its cause: missing or
 * malformed Authorization, missing x-api-key or appId, bad signature, expiry, revocation, mismatch.
 */
export async function authenticate(
  deps: { cache: AuthCache; signingKeys: SigningKeys; clock: Clock },
  headers: Headers,
  requestId: string,
): Promise<Authenticated> {
  const authorization = headers.get('authorization');
  if (!authorization) throw authErrors.missingAuthorization();
  const bearer = BEARER.exec(authorization);
  if (!bearer) throw authErrors.malformedAuthorization();
  const apiKey = headers.get('x-api-key');
  if (!apiKey) throw authErrors.missingApiKey();
  const appId = headers.get('appid');
  if (!appId) throw authErrors.missingAppId();

  const check = verifyAppToken(deps.signingKeys, bearer[1]!, deps.clock.now().getTime());
  if (!check.ok) throw check.reason === 'expired' ? authErrors.expiredToken() : authErrors.invalidToken();
  const { claims } = check;

  const account = await deps.cache.accountByApiKey(apiKey);
  if (!account) throw authErrors.invalidApiKey();
  if (claims.acc !== account.id) throw authErrors.tokenOfOtherAccount();
  if (claims.sub !== appId) throw authErrors.tokenOfOtherApp();
  const app = await deps.cache.app(appId);
  if (!belongsTo(app, account.id)) throw authErrors.unknownApp();
  if (app.keyVersion !== claims.ver) throw authErrors.revokedToken();
  if (account.status !== 'active') throw authErrors.accountDisabled();

  return {
    accountId: account.id,
    appId,
    clockOffsetSeconds: account.clockOffsetSeconds,
    requestId,
    account,
    apiKey,
    tokenExpiresAt: new Date(claims.exp * 1000),
  };
}
