import type { OpenAPIHono } from '@hono/zod-openapi';
import { createAccountRoute, updateAccountRoute } from '@pps/shared/contract';
import { safeEqual } from '@pps/shared/crypto';
import { ApiError, bodyChecks } from '@pps/shared/http';
import { type GatewayDeps, type GatewayEnv, gatewayContext } from '../deps';
import { accountDocument, createAccount, setAccountStatus } from './accounts.usecases';
import { registerAchFileRoutes } from './ach-files.routes';
import { QUEUE_BOARD_PATH, registerQueueBoard } from './queues.routes';

/** The admin token from `Bearer <token>`, or the password of Basic auth (what a browser can send). */
function adminCredential(header: string): string | null {
  if (header.startsWith('Bearer ')) return header.slice(7);
  if (!header.startsWith('Basic ')) return null;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : null;
}

export function registerAdminRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps) {
  app.use('/admin/*', async (c, next) => {
    const presented = adminCredential(c.req.header('authorization') ?? '');
    if (presented === null || !safeEqual(presented, deps.config.ADMIN_TOKEN)) {
      throw new ApiError({
        status: 401,
        code: 'invalid_admin_token',
        detail: 'Admin calls need Authorization: Bearer <ADMIN_TOKEN> (or Basic auth with it as the password)',
        // A browser opening the queue board asks for the token.
        headers: c.req.path.startsWith(QUEUE_BOARD_PATH) ? { 'www-authenticate': 'Basic realm="pps ops"' } : undefined,
      });
    }
    await next();
  });
  app.use('/admin/*', bodyChecks());
  const ctx = gatewayContext(deps);

  app.openapi(createAccountRoute, async (c) => {
    const created = await createAccount({ ctx, input: c.req.valid('json').data.attributes });
    const shownOnce = { apiKey: created.apiKey, appId: created.appId };
    return c.json(accountDocument(deps.config.PUBLIC_BASE_URL, created.account, shownOnce), 201);
  });

  app.openapi(updateAccountRoute, async (c) => {
    const { status, apiVersion } = c.req.valid('json').data.attributes;
    const account = await setAccountStatus({ ctx, input: { id: c.req.valid('param').id, status, apiVersion } });
    deps.auth.forgetAccount(account.id);
    return c.json(accountDocument(deps.config.PUBLIC_BASE_URL, account), 200);
  });

  registerAchFileRoutes(app, deps);
  if (deps.queues) registerQueueBoard(app as never, deps.queues);
}
