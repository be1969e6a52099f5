import { getEventRoute, listEventDeliveriesRoute, listEventsRoute, redeliverEventRoute } from '@pps/shared/contract';
import { list, type ServiceApp, type ServiceDeps } from '@pps/shared/http';
import { eventDocument, eventResource } from './events.presenter';
import { getEvent, listAccountEvents, listDeliveriesOfEvent, redeliverEvent } from './events.usecases';
import { deliveriesPage, deliveryResource } from './webhooks.presenter';

/** `/events*`: the account's events, their deliveries and their redelivery to webhook endpoints (docs/design.md). */
export function registerEventRoutes(app: ServiceApp, deps: ServiceDeps) {
  const baseUrl = deps.config.PUBLIC_BASE_URL;

  app.openapi(listEventsRoute, async (c) => {
    const query = c.req.valid('query');
    const page = await listAccountEvents({ ctx: c.get('ctx'), input: query });
    return c.json(
      list(c, baseUrl, page.rows.map(eventResource), {
        total: page.total,
        limit: query.limit,
        offset: query.offset,
        travel: page.travel,
      }),
      200,
    );
  });

  app.openapi(getEventRoute, async (c) => {
    const event = await getEvent({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(eventDocument(baseUrl, event), 200);
  });

  app.openapi(listEventDeliveriesRoute, async (c) => {
    const query = c.req.valid('query');
    const page = await listDeliveriesOfEvent({ ctx: c.get('ctx'), input: { ...c.req.valid('param'), ...query } });
    return c.json(deliveriesPage(c, baseUrl, query, page), 200);
  });

  app.openapi(redeliverEventRoute, async (c) => {
    // The validator gives `{}` when there is no body, Content-Type or not (the route's `optionalBody()`): every
    // endpoint, like `{}` or attributes without endpointId.
    const deliveries = await redeliverEvent({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id, attributes: c.req.valid('json').data?.attributes ?? {} },
    });
    return c.json({ data: deliveries.map(deliveryResource) }, 202);
  });
}
