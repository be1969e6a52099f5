import { randomSecret, sha256Hex } from '@pps/shared/crypto';
import { belongsTo } from '@pps/shared/http';
import { signAppToken } from '../auth/app-token';
import { authErrors } from '../auth/auth.errors';
import { findApp, findAppKeyWithApp, listApps, rotateAppKey } from '../auth/auth.repository';
import type { AccountContext } from '../deps';

/** POST /auth/key: a new app key for an app of the caller's account; older keys and their tokens stop working. */
export async function createAppKey({
  ctx,
  input,
}: {
  ctx: Pick<AccountContext, 'db' | 'clock' | 'log' | 'account'>;
  input: { appId: string };
}) {
  const now = ctx.clock.now();
  const app = await findApp(ctx.db, input.appId);
  if (!belongsTo(app, ctx.account.id)) throw authErrors.appNotOfAccount();
  const appKey = randomSecret('ak_');
  const keyVersion = await rotateAppKey(ctx.db, app.id, sha256Hex(appKey), now);
  ctx.log.info({ accountId: ctx.account.id, appId: input.appId, keyVersion }, 'app key created');
  return { appId: app.id, appKey, keyVersion };
}

/** POST /auth/token: an app token for the newest app key of one of the caller's apps. */
export async function createAppToken({
  ctx,
  input,
}: {
  ctx: Pick<AccountContext, 'db' | 'clock' | 'config' | 'account'>;
  input: { appKey: string };
}) {
  const { TOKEN_SIGNING_KEYS: signingKeys, APP_TOKEN_TTL_SECONDS: ttlSeconds } = ctx.config;
  const now = ctx.clock.now();
  const key = await findAppKeyWithApp(ctx.db, sha256Hex(input.appKey));
  if (!belongsTo(key, ctx.account.id)) throw authErrors.invalidAppKey();
  if (key.superseded || key.version !== key.appKeyVersion) throw authErrors.supersededAppKey();
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + ttlSeconds;
  const appToken = signAppToken(signingKeys, { sub: key.appId, acc: ctx.account.id, ver: key.version, iat, exp });
  return { appToken, expiresAt: new Date(exp * 1000), expiresIn: ttlSeconds };
}

/** GET /auth (and the console's Developers page): the apps of the caller's account, oldest first. */
export async function listAccountApps({ ctx }: { ctx: Pick<AccountContext, 'db'> & { account: { id: string } } }) {
  return listApps(ctx.db, ctx.account.id);
}
