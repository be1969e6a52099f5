import type { OpenAPIHono } from '@hono/zod-openapi';
import { createAppKeyRoute, createAppTokenRoute, getAuthRoute, verifyAppTokenRoute } from '@pps/shared/contract';
import { bodyChecks } from '@pps/shared/http';
import type { MiddlewareHandler } from 'hono';
import { authErrors } from '../auth/auth.errors';
import type { AccountSnapshot } from '../auth/auth-cache';
import { type GatewayDeps, type GatewayEnv, gatewayContext } from '../deps';
import type { RateLimits } from '../limits/rate-limits';
import { createAppKey, createAppToken, listAccountApps } from './auth.usecases';

type KeyEnv = GatewayEnv & { Variables: { account: AccountSnapshot; apiKey: string } };

/** The two auth endpoints need only x-api-key; it is checked before the body so a stranger learns nothing. */
const requireApiKey =
  (deps: GatewayDeps, limits: RateLimits): MiddlewareHandler<KeyEnv> =>
  async (c, next) => {
    const apiKey = c.req.header('x-api-key');
    if (!apiKey) throw authErrors.missingApiKey();
    const account = await deps.auth.accountByApiKey(apiKey);
    if (!account) throw authErrors.invalidApiKey();
    if (account.status !== 'active') throw authErrors.accountDisabled();
    c.set('account', account);
    c.set('apiKey', apiKey);
    await limits.perAccount(c, account.id, next);
  };

export function registerAuthRoutes(
  app: OpenAPIHono<GatewayEnv>,
  deps: GatewayDeps,
  authenticated: MiddlewareHandler<GatewayEnv>,
  limits: RateLimits,
) {
  const base = deps.config.PUBLIC_BASE_URL;
  const ctx = gatewayContext(deps);
  const keyApp = app as unknown as OpenAPIHono<KeyEnv>;
  // One authentication attempt each: a 401 of the API key check, or of the app key check in the handler, counts.
  keyApp.on(
    'POST',
    ['/auth/key', '/auth/token'],
    (c, next) => limits.authAttempt(c, next),
    requireApiKey(deps, limits),
    bodyChecks(),
  );

  keyApp.openapi(createAppKeyRoute, async (c) => {
    const account = c.get('account');
    const created = await createAppKey({ ctx: { ...ctx, account }, input: c.req.valid('json').data.attributes });
    deps.auth.forgetAccount(account.id);
    return c.json(
      {
        links: { self: `${base}/auth/key` },
        data: { type: 'auth' as const, id: c.get('apiKey'), attributes: created },
      },
      201,
    );
  });

  keyApp.openapi(createAppTokenRoute, async (c) => {
    const account = c.get('account');
    const token = await createAppToken({ ctx: { ...ctx, account }, input: c.req.valid('json').data.attributes });
    return c.json(
      {
        links: { self: `${base}/auth/token` },
        data: {
          type: 'auth' as const,
          id: c.get('apiKey'),
          attributes: {
            appToken: token.appToken,
            tokenType: 'Bearer' as const,
            expiresAt: token.expiresAt.toISOString(),
            expiresIn: token.expiresIn,
          },
        },
      },
      201,
    );
  });

  app.on('GET', ['/auth', '/auth/token'], authenticated);

  app.openapi(verifyAppTokenRoute, (c) => {
    const caller = c.get('caller');
    const expiresIn = Math.max(0, Math.floor((caller.tokenExpiresAt.getTime() - deps.clock.now().getTime()) / 1000));
    return c.json(
      {
        links: { self: `${base}/auth/token` },
        data: {
          type: 'auth' as const,
          id: caller.apiKey,
          attributes: {
            valid: true as const,
            appId: caller.appId,
            accountId: caller.accountId,
            expiresAt: caller.tokenExpiresAt.toISOString(),
            expiresIn,
          },
        },
      },
      200,
    );
  });

  app.openapi(getAuthRoute, async (c) => {
    const caller = c.get('caller');
    const apps = await listAccountApps({ ctx: { ...ctx, account: caller.account } });
    return c.json(
      {
        links: { self: `${base}/auth` },
        data: {
          type: 'auth' as const,
          id: caller.apiKey,
          attributes: {
            accountId: caller.account.id,
            accountName: caller.account.name,
            status: caller.account.status,
            apps: apps.map((row) => ({
              appId: row.id,
              name: row.name,
              keyVersion: row.keyVersion,
              createdAt: row.createdAt.toISOString(),
            })),
          },
        },
      },
      200,
    );
  });
}
