import type { OpenAPIHono } from '@hono/zod-openapi';
import { getAchFileRoute, listAchFilesRoute } from '@pps/shared/contract';
import { FieldCipher } from '@pps/shared/crypto';
import { schema } from '@pps/shared/db';
import { absoluteUrl, list, notFound } from '@pps/shared/http';
import { count, desc, eq } from 'drizzle-orm';
import type { GatewayDeps, GatewayEnv } from '../deps';

const { achFiles } = schema;

/** Ops read the NACHA files settlement wrote (the settlement service owns the table; the gateway only reads). */
export function registerAchFileRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps) {
  const base = deps.config.PUBLIC_BASE_URL;
  const cipher = new FieldCipher(deps.config.DATA_ENCRYPTION_KEYS);

  app.openapi(listAchFilesRoute, async (c) => {
    const { limit, offset } = c.req.valid('query');
    const [rows, totals] = await Promise.all([
      deps.db
        .select({
          id: achFiles.id,
          createdAt: achFiles.createdAt,
          batchCount: achFiles.batchCount,
          entryCount: achFiles.entryCount,
          entryHash: achFiles.entryHash,
          totalDebit: achFiles.totalDebit,
          totalCredit: achFiles.totalCredit,
          paymentIds: achFiles.paymentIds,
        })
        .from(achFiles)
        .orderBy(desc(achFiles.createdAt), desc(achFiles.id))
        .limit(limit)
        .offset(offset),
      deps.db.select({ total: count() }).from(achFiles),
    ]);
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
    return c.json(list(c, base, data, { total: totals[0]?.total ?? 0, limit, offset }), 200);
  });

  app.openapi(getAchFileRoute, async (c) => {
    const { id } = c.req.valid('param');
    const [row] = await deps.db.select({ content: achFiles.contentEnc }).from(achFiles).where(eq(achFiles.id, id));
    if (!row) throw notFound('achFile', id);
    return c.text(cipher.decrypt(row.content), 200, { 'content-type': 'text/plain; charset=us-ascii' });
  });
}
