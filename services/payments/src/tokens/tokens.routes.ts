import { createTokenRoute, getTokenRoute, listTokensRoute } from '@pps/shared/contract';
import { list, type ServiceApp, type ServiceDeps } from '@pps/shared/http';
import { tokenDocument, tokenResource } from './tokens.presenter';
import { createDataCipher } from './tokens.repository';
import { createToken, getToken, listAccountTokens } from './tokens.usecases';

/** `/tokens*`: the card vault (docs/design.md). */
export function registerTokenRoutes(app: ServiceApp, deps: ServiceDeps) {
  const cipher = createDataCipher(deps.config);
  const baseUrl = deps.config.PUBLIC_BASE_URL;

  app.openapi(createTokenRoute, async (c) => {
    const token = await createToken({ ctx: c.get('ctx'), cipher, input: c.req.valid('json').data.attributes });
    return c.json(tokenDocument(baseUrl, token), 201);
  });

  app.openapi(getTokenRoute, async (c) => {
    const token = await getToken({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(tokenDocument(baseUrl, token), 200);
  });

  app.openapi(listTokensRoute, async (c) => {
    const query = c.req.valid('query');
    const page = await listAccountTokens({ ctx: c.get('ctx'), input: query });
    return c.json(
      list(c, baseUrl, page.rows.map(tokenResource), {
        total: page.total,
        limit: query.limit,
        offset: query.offset,
        travel: page.travel,
      }),
      200,
    );
  });
}
