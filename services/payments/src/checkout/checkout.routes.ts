import { createCheckoutSessionRoute, createCheckoutTokenRoute, getCheckoutSessionRoute } from '@pps/shared/contract';
import { type ServiceApp, type ServiceDeps, wallClockNow } from '@pps/shared/http';
import { tokenDocument } from '../tokens/tokens.presenter';
import { createDataCipher } from '../tokens/tokens.repository';
import { checkoutSessionDocument } from './checkout.presenter';
import { createCheckoutSession, createCheckoutToken, getCheckoutSession } from './checkout.usecases';

/** `/checkout/sessions*`: sessions of the hosted card form, and its card POST (docs/api.md, Checkout). */
export function registerCheckoutRoutes(app: ServiceApp, deps: ServiceDeps) {
  const cipher = createDataCipher(deps.config);
  const baseUrl = deps.config.PUBLIC_BASE_URL;

  app.openapi(createCheckoutSessionRoute, async (c) => {
    const ctx = c.get('ctx');
    const { session, clientSecret } = await createCheckoutSession({ ctx, input: c.req.valid('json').data.attributes });
    return c.json(checkoutSessionDocument(baseUrl, session, wallClockNow(ctx), clientSecret), 201);
  });

  app.openapi(getCheckoutSessionRoute, async (c) => {
    const ctx = c.get('ctx');
    const session = await getCheckoutSession({ ctx, input: c.req.valid('param') });
    return c.json(checkoutSessionDocument(baseUrl, session, wallClockNow(ctx)), 200);
  });

  app.openapi(createCheckoutTokenRoute, async (c) => {
    const token = await createCheckoutToken({
      ctx: c.get('ctx'),
      cipher,
      input: { sessionId: c.req.valid('param').id, attributes: c.req.valid('json').data.attributes },
    });
    return c.json(tokenDocument(baseUrl, token), 201);
  });
}
