import type { Travel } from '@pps/shared/db';
import { absoluteUrl, list, single } from '@pps/shared/http';
import type { Context } from 'hono';
import type { DeliveryView } from '../delivery/deliveries.repository';
import type { WebhookEndpoint } from './webhooks.repository';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The endpoint as GET shows it (and as the `webhook.test` event carries it): never a secret. */
export const webhookResource = (endpoint: WebhookEndpoint) => ({
  type: 'webhooks' as const,
  id: endpoint.id,
  attributes: {
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    apiVersion: endpoint.apiVersion,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  },
});

const selfOf = (baseUrl: string, endpoint: WebhookEndpoint) => absoluteUrl(baseUrl, `/webhooks/${endpoint.id}`);

export const webhookDocument = (baseUrl: string, endpoint: WebhookEndpoint) =>
  single(selfOf(baseUrl, endpoint), webhookResource(endpoint));

/** Creation and rotation only: the resource with the clear secret just made (never read back from storage). */
export function webhookDocumentWithSecret(baseUrl: string, endpoint: WebhookEndpoint, secret: string) {
  const { attributes, ...resource } = webhookResource(endpoint);
  const { createdAt, updatedAt, ...rest } = attributes;
  return single(selfOf(baseUrl, endpoint), { ...resource, attributes: { ...rest, secret, createdAt, updatedAt } });
}

export const deliveryResource = ({ delivery, eventType, attempts }: DeliveryView) => ({
  type: 'deliveries' as const,
  id: delivery.id,
  attributes: {
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    redeliveries: delivery.redeliveries,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    nextAttemptAt: iso(delivery.nextAttemptAt),
    createdAt: delivery.createdAt.toISOString(),
    updatedAt: delivery.updatedAt.toISOString(),
    completedAt: iso(delivery.completedAt),
    attemptLog: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      statusCode: attempt.statusCode,
      latencyMs: attempt.latencyMs,
      error: attempt.error,
      createdAt: attempt.createdAt.toISOString(),
    })),
  },
});

/** A page of deliveries (an endpoint's, or an event's) as its list document, by the list's query. */
export const deliveriesPage = (
  c: Context,
  baseUrl: string,
  query: { limit: number; offset: number },
  page: { rows: DeliveryView[]; total: number; travel?: Travel },
) =>
  list(c, baseUrl, page.rows.map(deliveryResource), {
    total: page.total,
    limit: query.limit,
    offset: query.offset,
    travel: page.travel,
  });

/** A recovery's answer: how many failed deliveries of the endpoint were reopened, and the window (the id is the endpoint's). */
export const recoveryDocument = (recovery: {
  endpointId: string;
  since: Date | null;
  until: Date | null;
  reopened: number;
}) => ({
  data: {
    type: 'recoveries' as const,
    id: recovery.endpointId,
    attributes: {
      endpointId: recovery.endpointId,
      since: recovery.since?.toISOString() ?? null,
      until: recovery.until?.toISOString() ?? null,
      reopened: recovery.reopened,
    },
  },
});
