import { randomSecret, sha256Hex } from '@pps/shared/crypto';
import type { Db } from '@pps/shared/db';
import { type SigningKeys, signAppToken } from './app-token';
import { authErrors } from './auth.errors';
import { findApp, findAppKeyWithApp, rotateAppKey } from './auth.repository';
import type { AccountSnapshot } from './auth-cache';

/** POST /auth/key: a new app key for an app of the caller's account; older keys and their tokens stop working. */
export async function createAppKey(db: Db, account: AccountSnapshot, appId: string, now: Date) {
  const app = await findApp(db, appId);
  if (!app || app.accountId !== account.id) throw authErrors.appNotOfAccount();
  const appKey = randomSecret('ak_');
  const keyVersion = await rotateAppKey(db, app.id, sha256Hex(appKey), now);
  return { appId: app.id, appKey, keyVersion };
}

/** POST /auth/token: an app token for the newest app key of one of the caller's apps. */
export async function createAppToken(
  deps: { db: Db; signingKeys: SigningKeys; ttlSeconds: number },
  account: AccountSnapshot,
  appKey: string,
  now: Date,
) {
  const key = await findAppKeyWithApp(deps.db, sha256Hex(appKey));
  if (!key || key.accountId !== account.id) throw authErrors.invalidAppKey();
  if (key.superseded || key.version !== key.appKeyVersion) throw authErrors.supersededAppKey();
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + deps.ttlSeconds;
  const appToken = signAppToken(deps.signingKeys, { sub: key.appId, acc: account.id, ver: key.version, iat, exp });
  return { appToken, expiresAt: new Date(exp * 1000), expiresIn: deps.ttlSeconds };
}
