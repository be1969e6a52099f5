import type { OpenAPIHono } from '@hono/zod-openapi';
import { listVersionsRoute } from '@pps/shared/contract';
import { API_VERSIONS, NEWEST_VERSION, VERSION_CHANGES } from '@pps/shared/versions';
import type { Env } from 'hono';

/** `GET /versions` (public): every version, oldest first, with the changes it brought (its changelog). */
export function registerVersionRoutes<E extends Env>(app: OpenAPIHono<E>, baseUrl: string) {
  const data = API_VERSIONS.map((version) => ({
    type: 'versions' as const,
    id: version,
    attributes: {
      newest: version === NEWEST_VERSION,
      changes: VERSION_CHANGES.filter((change) => change.version === version).map(({ name, changelog }) => ({
        name,
        changelog,
      })),
    },
  }));
  app.openapi(listVersionsRoute, (c) =>
    c.json(
      {
        links: { self: `${baseUrl}/versions`, next: null },
        data,
        meta: { total: data.length, limit: data.length, offset: 0, hasMore: false },
      },
      200,
    ),
  );
}
