import type { OpenAPIHono } from '@hono/zod-openapi';
import { createAccountRoute, updateAccountRoute } from '@pps/shared/contract';
import { safeEqual } from '@pps/shared/crypto';
import { unauthorized } from '@pps/shared/http';
import type { GatewayDeps, GatewayEnv } from '../deps';
import { accountDocument, createAccount, setAccountStatus } from './accounts.usecases';
import { registerAchFileRoutes } from './ach-files.routes';

export function registerAdminRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps) {
  app.use('/admin/*', async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    if (!header.startsWith('Bearer ') || !safeEqual(header.slice(7), deps.config.ADMIN_TOKEN)) {
      throw unauthorized('invalid_admin_token', 'Admin calls need Authorization: Bearer <ADMIN_TOKEN>');
    }
    await next();
  });

  app.openapi(createAccountRoute, async (c) => {
    const { name } = c.req.valid('json').data.attributes;
    const created = await createAccount(deps.db, { name }, deps.clock.now());
    deps.log.info({ accountId: created.account.id, appId: created.appId }, 'account created');
    return c.json(accountDocument(deps.config.PUBLIC_BASE_URL, created.account, created), 201);
  });

  app.openapi(updateAccountRoute, async (c) => {
    const { status } = c.req.valid('json').data.attributes;
    const account = await setAccountStatus(deps.db, c.req.valid('param').id, status, deps.clock.now());
    deps.auth.forgetAccount(account.id);
    deps.log.info({ accountId: account.id, status }, 'account status changed');
    return c.json(accountDocument(deps.config.PUBLIC_BASE_URL, account), 200);
  });

  registerAchFileRoutes(app, deps);
}
