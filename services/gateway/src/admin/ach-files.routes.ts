import type { OpenAPIHono } from '@hono/zod-openapi';
import { getAchFileRoute, listAchFilesRoute } from '@pps/shared/contract';
import { FieldCipher } from '@pps/shared/crypto';
import { absoluteUrl, list } from '@pps/shared/http';
import { type GatewayDeps, type GatewayEnv, gatewayContext } from '../deps';
import { listAchFiles, readAchFile } from './ach-files.usecases';

/** Ops read the NACHA files settlement wrote (the settlement service owns the table; the gateway only reads). */
export function registerAchFileRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps) {
  const base = deps.config.PUBLIC_BASE_URL;
  const cipher = new FieldCipher(deps.config.DATA_ENCRYPTION_KEYS);
  const ctx = gatewayContext(deps);

  app.openapi(listAchFilesRoute, async (c) => {
    const query = c.req.valid('query');
    const { rows, total, travel } = await listAchFiles({ ctx, input: query });
    const data = rows.map(({ id, createdAt, totalDebit, totalCredit, ...rest }) => ({
      type: 'achFiles' as const,
      id,
      links: { self: absoluteUrl(base, `/admin/ach-files/${id}`) },
      attributes: {
        ...rest,
        createdAt: createdAt.toISOString(),
        totalDebit: String(totalDebit),
        totalCredit: String(totalCredit),
      },
    }));
    return c.json(list(c, base, data, { total, limit: query.limit, offset: query.offset, travel }), 200);
  });

  app.openapi(getAchFileRoute, async (c) => {
    const content = await readAchFile({ ctx, cipher, input: c.req.valid('param') });
    return c.text(content, 200, { 'content-type': 'text/plain; charset=us-ascii' });
  });
}
