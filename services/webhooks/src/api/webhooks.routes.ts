import {
  createWebhookRoute,
  deleteWebhookRoute,
  getWebhookRoute,
  listWebhookDeliveriesRoute,
  listWebhooksRoute,
  recoverWebhookRoute,
  rotateWebhookSecretRoute,
  testWebhookRoute,
  updateWebhookRoute,
} from '@pps/shared/contract';
import { list, type ServiceApp, type ServiceDeps } from '@pps/shared/http';
import { eventDocument } from './events.presenter';
import {
  deliveriesPage,
  recoveryDocument,
  webhookDocument,
  webhookDocumentWithSecret,
  webhookResource,
} from './webhooks.presenter';
import { createSecretCipher } from './webhooks.repository';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listAccountWebhooks,
  listWebhookDeliveries,
  recoverWebhook,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from './webhooks.usecases';

/** `/webhooks*`: the account's webhook endpoints and their deliveries (docs/design.md). */
export function registerWebhookRoutes(app: ServiceApp, deps: ServiceDeps) {
  const cipher = createSecretCipher(deps.config);
  const baseUrl = deps.config.PUBLIC_BASE_URL;

  app.openapi(createWebhookRoute, async (c) => {
    const { endpoint, secret } = await createWebhook({
      ctx: c.get('ctx'),
      cipher,
      input: c.req.valid('json').data.attributes,
    });
    return c.json(webhookDocumentWithSecret(baseUrl, endpoint, secret), 201);
  });

  app.openapi(listWebhooksRoute, async (c) => {
    const query = c.req.valid('query');
    const page = await listAccountWebhooks({ ctx: c.get('ctx'), input: query });
    return c.json(
      list(c, baseUrl, page.rows.map(webhookResource), {
        total: page.total,
        limit: query.limit,
        offset: query.offset,
        travel: page.travel,
      }),
      200,
    );
  });

  app.openapi(getWebhookRoute, async (c) => {
    const endpoint = await getWebhook({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(webhookDocument(baseUrl, endpoint), 200);
  });

  app.openapi(updateWebhookRoute, async (c) => {
    const endpoint = await updateWebhook({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id, attributes: c.req.valid('json').data.attributes },
    });
    return c.json(webhookDocument(baseUrl, endpoint), 200);
  });

  app.openapi(deleteWebhookRoute, async (c) => {
    await deleteWebhook({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.body(null, 204);
  });

  app.openapi(rotateWebhookSecretRoute, async (c) => {
    const { endpoint, secret } = await rotateWebhookSecret({ ctx: c.get('ctx'), cipher, input: c.req.valid('param') });
    return c.json(webhookDocumentWithSecret(baseUrl, endpoint, secret), 200);
  });

  app.openapi(testWebhookRoute, async (c) => {
    const event = await sendTestEvent({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(eventDocument(baseUrl, event), 202);
  });

  app.openapi(recoverWebhookRoute, async (c) => {
    // No body, or `{}`: the whole window (the route's `optionalBody()`).
    const attributes = c.req.valid('json').data?.attributes ?? {};
    const recovery = await recoverWebhook({ ctx: c.get('ctx'), input: { ...c.req.valid('param'), attributes } });
    return c.json(recoveryDocument(recovery), 202);
  });

  app.openapi(listWebhookDeliveriesRoute, async (c) => {
    const query = c.req.valid('query');
    const page = await listWebhookDeliveries({ ctx: c.get('ctx'), input: { ...c.req.valid('param'), ...query } });
    return c.json(deliveriesPage(c, baseUrl, query, page), 200);
  });
}
