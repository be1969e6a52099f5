import type { OpenAPIHono } from '@hono/zod-openapi';
import { getRequestRoute, listRequestsRoute } from '@pps/shared/contract';
import type { Db } from '@pps/shared/db';
import { list } from '@pps/shared/http';
import type { MiddlewareHandler } from 'hono';
import type { GatewayEnv } from '../../auth/authenticate';
import { requestDocument, requestSummary } from './requests.presenter';
import { getRequest, listRequests } from './requests.usecases';

/** `/requests*`: the account's request log (the gateway sees every request, and writes the log). */
export function registerRequestRoutes(
  app: OpenAPIHono<GatewayEnv>,
  deps: { db: Db; baseUrl: string },
  authenticated: MiddlewareHandler<GatewayEnv>,
) {
  const { db, baseUrl: base } = deps;
  app.use('/requests', authenticated);
  app.use('/requests/*', authenticated);

  app.openapi(listRequestsRoute, async (c) => {
    const input = c.req.valid('query');
    const { rows, total, travel } = await listRequests({ ctx: { db, account: c.get('caller').account }, input });
    const data = rows.map((row) => requestSummary(base, row));
    return c.json(list(c, base, data, { total, limit: input.limit, offset: input.offset, travel }), 200);
  });

  app.openapi(getRequestRoute, async (c) => {
    const row = await getRequest({ ctx: { db, account: c.get('caller').account }, input: c.req.valid('param') });
    return c.json(requestDocument(base, row), 200);
  });
}
