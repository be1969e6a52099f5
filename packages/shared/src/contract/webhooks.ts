import { createRoute, z } from '@hono/zod-openapi';
import { deliveryStatuses } from '../db/schema/webhooks';
import { eventTypes } from '../events/outbox';
import { optionalBody } from '../http/body';
import { listQuery } from '../http/pagination';
import { strictObject } from '../http/strict-body';
import { API_VERSIONS, NEWEST_VERSION } from '../versions/versions';
import {
  authenticated,
  authenticatedBodyErrors,
  authenticatedErrors,
  idParam,
  isoTimestamp,
  jsonBody,
  jsonResponse,
  listDocument,
  requestEnvelope,
  resourceSchema,
  singleDocument,
} from './common';

// Webhook endpoints, their deliveries, and the account's events (docs/design.md).

/** Issues carrying `params.code` are reported with that error code instead of `invalid_field`. */
const coded = (code: string, message: string) => ({ message, params: { code } });

const knownEventTypes = new Set<string>(eventTypes);
const eventTypeList = eventTypes.join(', ');

export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** What is wrong with a webhook URL's form (http or https, a host, no credentials), or null. */
export function webhookUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must use http or https';
  if (!url.hostname) return 'url must name a host';
  if (url.username || url.password) return 'url must not carry credentials';
  return null;
}

/** http or https, a host, no credentials (`webhookUrlProblem`); private targets are refused later, in production. */
const webhookUrl = z
  .string()
  .superRefine((value, ctx) => {
    const problem =
      value.length > WEBHOOK_URL_MAX_LENGTH
        ? `url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`
        : webhookUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', ...coded('invalid_webhook_url', problem) });
  })
  .openapi({
    format: 'uri',
    example: 'https://example.com/hooks/pps',
    description:
      'http or https, no credentials. In production a host resolving to a private, link-local or loopback ' +
      'address is refused (unless WEBHOOK_ALLOW_PRIVATE).',
  });

/**
 * Known event types, or exactly `["*"]` for all. Each unknown type (and a `*` next to other types) is a
 * 400 `invalid_event_type` pointing at its index; duplicates are dropped, order kept.
 */
const webhookEvents = z
  .array(z.string().openapi({ enum: [...eventTypes, '*'] }))
  .min(1, 'events must name at least one event type, or "*" for all')
  .superRefine((types, ctx) => {
    const wildcardAlone = types.every((type) => type === '*');
    types.forEach((type, index) => {
      if (type === '*') {
        if (!wildcardAlone) {
          ctx.addIssue({
            code: 'custom',
            path: [index],
            ...coded('invalid_event_type', '"*" stands for every event type and must be alone'),
          });
        }
      } else if (!knownEventTypes.has(type)) {
        ctx.addIssue({
          code: 'custom',
          path: [index],
          ...coded('invalid_event_type', `"${type}" is not an event type; use ${eventTypeList}, or "*"`),
        });
      }
    });
  })
  .transform((types) => [...new Set(types)])
  .openapi({ example: ['payment.completed', 'payment.failed'] });

/** Trimmed; blank (or null on update) clears it. */
const webhookDescription = z
  .string()
  .trim()
  .max(500)
  .nullable()
  .optional()
  .openapi({ example: 'Order system', description: 'At most 500 characters; blank or null for none' });

const webhookApiVersion = z.enum(API_VERSIONS).openapi({
  example: NEWEST_VERSION,
  description: "The API version its events are delivered in; by default the account's pin (docs/api.md, Versions)",
});

export const createWebhookBodySchema = requestEnvelope(
  'webhooks',
  strictObject({
    url: webhookUrl,
    events: webhookEvents,
    description: webhookDescription,
    apiVersion: webhookApiVersion.optional(),
  }),
).openapi('WebhookCreateRequest');

export const updateWebhookBodySchema = requestEnvelope(
  'webhooks',
  strictObject({
    url: webhookUrl.optional(),
    events: webhookEvents.optional(),
    description: webhookDescription,
    enabled: z.boolean().optional().openapi({ description: 'true re-enables the endpoint and clears disabledReason' }),
    apiVersion: webhookApiVersion.optional(),
  }).refine(
    (value) =>
      value.url !== undefined ||
      value.events !== undefined ||
      value.description !== undefined ||
      value.enabled !== undefined ||
      value.apiVersion !== undefined,
    { message: 'attributes must give at least one of url, events, description, enabled, apiVersion' },
  ),
).openapi('WebhookUpdateRequest');

export type WebhookCreateInput = z.output<typeof createWebhookBodySchema>['data']['attributes'];
export type WebhookUpdateInput = z.output<typeof updateWebhookBodySchema>['data']['attributes'];

/** Optional as a whole: no body, `{}`, or attributes without `endpointId` all mean every endpoint. */
export const redeliverBodySchema = strictObject({
  data: requestEnvelope(
    'redeliveries',
    strictObject({
      endpointId: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .openapi({ example: 'whk_…', description: 'Only this endpoint; without it, every endpoint' }),
    }),
  ).shape.data.optional(),
}).openapi('RedeliverRequest');

export type RedeliverInput = NonNullable<z.output<typeof redeliverBodySchema>['data']>['attributes'];

const windowEnd = (description: string) =>
  z.string().datetime({ offset: true }).optional().openapi({ example: '2026-11-20T00:00:00Z', description });

/** Optional as a whole: no body, `{}`, or attributes without `since` reopen every failed delivery kept. */
export const recoverBodySchema = strictObject({
  data: requestEnvelope(
    'recoveries',
    strictObject({
      since: windowEnd('Deliveries made at or after this instant; without it, from the oldest kept'),
      until: windowEnd('Deliveries made before this instant; without it, up to now'),
    }),
  ).shape.data.optional(),
}).openapi('RecoverRequest');

export type RecoverInput = NonNullable<z.output<typeof recoverBodySchema>['data']>['attributes'];

// ── responses ─────────────────────────────────────────────────────────────────
export const webhookAttributesSchema = z.object({
  url: z.string(),
  events: z.array(z.string()).openapi({ example: ['payment.completed', 'payment.failed'] }),
  description: z.string().nullable(),
  enabled: z.boolean(),
  apiVersion: z.enum(API_VERSIONS).openapi({ description: 'The API version its events are delivered in' }),
  disabledReason: z
    .string()
    .nullable()
    .openapi({ description: 'Why the platform disabled it (e.g. the receiver answered 410); null when enabled' }),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});

export const webhookResourceSchema = resourceSchema('webhooks', webhookAttributesSchema).openapi('WebhookEndpoint');

/** Creation and rotation only: the signing secret in full, never shown again. */
export const webhookWithSecretResourceSchema = resourceSchema(
  'webhooks',
  webhookAttributesSchema.extend({
    secret: z.string().openapi({
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      description: 'The Standard Webhooks signing secret (whsec_…), shown only in this response',
    }),
  }),
).openapi('WebhookEndpointWithSecret');

export const eventResourceSchema = resourceSchema(
  'events',
  z.object({
    type: z.string().openapi({ example: 'payment.completed' }),
    resourceType: z.string().openapi({ example: 'payments' }),
    resourceId: z.string().openapi({ example: 'pay_…' }),
    sequence: z.number().int().openapi({ description: 'Grows per resource, so receivers can order its events' }),
    payload: z.record(z.string(), z.unknown()).openapi({
      description:
        'The body delivered to webhooks: {type, timestamp, data: {type, id, attributes, previousStatus, sequence}}',
    }),
    createdAt: isoTimestamp,
  }),
).openapi('Event');

export const deliveryResourceSchema = resourceSchema(
  'deliveries',
  z.object({
    endpointId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(deliveryStatuses),
    attempts: z.number().int(),
    redeliveries: z.number().int().openapi({ description: 'Redeliveries asked for' }),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    nextAttemptAt: isoTimestamp.nullable(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    completedAt: isoTimestamp.nullable(),
    attemptLog: z
      .array(
        z.object({
          attempt: z.number().int(),
          statusCode: z.number().int().nullable().openapi({ description: 'null when the receiver did not answer' }),
          latencyMs: z.number().int(),
          error: z.string().nullable(),
          createdAt: isoTimestamp,
        }),
      )
      .openapi({ description: 'Every attempt, oldest first' }),
  }),
).openapi('WebhookDelivery');

// ── routes ────────────────────────────────────────────────────────────────────
const webhookId = idParam('Webhook endpoint id', 'whk_…');
const eventId = idParam('Event id', 'evt_…');

const queryText = (name: string, description: string, example: string) =>
  z
    .string()
    .optional()
    .openapi({ param: { name, in: 'query' }, description, example });

export const listEventsQuerySchema = listQuery(
  {
    type: queryText('type', 'Only events of this type (400 invalid_event_type for an unknown one)', 'payment.completed')
      .openapi({ enum: [...eventTypes] })
      .superRefine((value, ctx) => {
        if (value && !knownEventTypes.has(value)) {
          ctx.addIssue({
            code: 'custom',
            ...coded('invalid_event_type', `type "${value}" is not an event type; use ${eventTypeList}`),
          });
        }
      })
      .transform((value) => (value ? value : undefined)),
    resourceId: queryText('resourceId', 'Only events of this resource', 'pay_…').transform((value) =>
      value ? value : undefined,
    ),
  },
  {
    resourceType: 'events are filtered by type (payment.completed, …) or resourceId',
    eventType: 'the event type filter is type',
    merchantId: 'events are filtered by type or resourceId',
  },
);

export const createWebhookRoute = createRoute({
  method: 'post',
  path: '/webhooks',
  operationId: 'createWebhook',
  tags: ['Webhooks'],
  summary: 'Subscribe a URL to events; the signing secret is shown in this response only',
  security: authenticated,
  request: { body: jsonBody(createWebhookBodySchema) },
  responses: {
    201: jsonResponse('The endpoint, with its secret', singleDocument(webhookWithSecretResourceSchema)),
    ...authenticatedBodyErrors(403),
  },
});

export const listWebhooksRoute = createRoute({
  method: 'get',
  path: '/webhooks',
  operationId: 'listWebhooks',
  tags: ['Webhooks'],
  summary: 'The account’s webhook endpoints, newest first (deleted ones left out)',
  security: authenticated,
  request: { query: listQuery({}) },
  responses: {
    200: jsonResponse('A page of endpoints', listDocument(webhookResourceSchema)),
    ...authenticatedErrors(400, 403),
  },
});

export const getWebhookRoute = createRoute({
  method: 'get',
  path: '/webhooks/{id}',
  operationId: 'getWebhook',
  tags: ['Webhooks'],
  summary: 'A webhook endpoint (never its secret)',
  security: authenticated,
  request: { params: webhookId },
  responses: {
    200: jsonResponse('The endpoint', singleDocument(webhookResourceSchema)),
    ...authenticatedErrors(403, 404),
  },
});

export const updateWebhookRoute = createRoute({
  method: 'put',
  path: '/webhooks/{id}',
  operationId: 'updateWebhook',
  tags: ['Webhooks'],
  summary: 'Change any of url, events, description, enabled (enabled: true clears disabledReason)',
  security: authenticated,
  request: { params: webhookId, body: jsonBody(updateWebhookBodySchema) },
  responses: {
    200: jsonResponse('The endpoint', singleDocument(webhookResourceSchema)),
    ...authenticatedBodyErrors(403, 404),
  },
});

export const deleteWebhookRoute = createRoute({
  method: 'delete',
  path: '/webhooks/{id}',
  operationId: 'deleteWebhook',
  tags: ['Webhooks'],
  summary: 'Remove a webhook endpoint: nothing more is delivered to it, and it answers 404 from then on',
  security: authenticated,
  request: { params: webhookId },
  responses: { 204: { description: 'Removed (no content)' }, ...authenticatedErrors(403, 404) },
});

export const rotateWebhookSecretRoute = createRoute({
  method: 'post',
  path: '/webhooks/{id}/rotate-secret',
  operationId: 'rotateWebhookSecret',
  tags: ['Webhooks'],
  summary:
    'A new signing secret, shown in this response only; the previous one keeps signing for ' +
    'WEBHOOK_SECRET_OVERLAP_HOURS (24 h by default). No request body.',
  security: authenticated,
  request: { params: webhookId },
  responses: {
    200: jsonResponse('The endpoint with its new secret', singleDocument(webhookWithSecretResourceSchema)),
    ...authenticatedErrors(403, 404),
  },
});

export const testWebhookRoute = createRoute({
  method: 'post',
  path: '/webhooks/{id}/test',
  operationId: 'testWebhook',
  tags: ['Webhooks'],
  summary:
    'Send a webhook.test event (the endpoint, without its secret) to this endpoint only. No request body. ' +
    '422 webhook_disabled for a disabled endpoint.',
  security: authenticated,
  request: { params: webhookId },
  responses: {
    202: jsonResponse('The test event, queued for delivery', singleDocument(eventResourceSchema)),
    ...authenticatedErrors(403, 404, 422),
  },
});

export const recoverWebhookRoute = createRoute({
  method: 'post',
  path: '/webhooks/{id}/recover',
  operationId: 'recoverWebhook',
  tags: ['Webhooks'],
  summary:
    'Deliver again every failed delivery of the endpoint made in a window (since, until; both optional, and the ' +
    'body too): after a receiver outage longer than the retries. 202 with how many were reopened. ' +
    '422 webhook_disabled for a disabled endpoint: turn it back on first.',
  security: authenticated,
  // No body, or `Content-Length: 0`, with or without `Content-Type: application/json`: the same as `{}`.
  middleware: optionalBody(),
  request: {
    params: webhookId,
    body: { required: false, content: { 'application/json': { schema: recoverBodySchema } } },
  },
  responses: {
    202: jsonResponse(
      "The failed deliveries reopened, queued for delivery (the id is the endpoint's)",
      z.object({
        data: resourceSchema(
          'recoveries',
          z.object({
            endpointId: z.string(),
            since: isoTimestamp.nullable(),
            until: isoTimestamp.nullable(),
            reopened: z.number().int().openapi({ description: 'Failed deliveries reopened' }),
          }),
        ).openapi('Recovery'),
      }),
    ),
    ...authenticatedBodyErrors(403, 404, 422),
  },
});

export const listWebhookDeliveriesRoute = createRoute({
  method: 'get',
  path: '/webhooks/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  tags: ['Webhooks'],
  summary: 'Deliveries to the endpoint, newest first, each with its attempts',
  security: authenticated,
  request: { params: webhookId, query: listQuery({}) },
  responses: {
    200: jsonResponse('A page of deliveries', listDocument(deliveryResourceSchema)),
    ...authenticatedErrors(400, 403, 404),
  },
});

export const listEventsRoute = createRoute({
  method: 'get',
  path: '/events',
  operationId: 'listEvents',
  tags: ['Events'],
  summary: 'The account’s events, newest first, filtered by type and resourceId',
  security: authenticated,
  request: { query: listEventsQuerySchema },
  responses: {
    200: jsonResponse('A page of events', listDocument(eventResourceSchema)),
    ...authenticatedErrors(400, 403),
  },
});

export const getEventRoute = createRoute({
  method: 'get',
  path: '/events/{id}',
  operationId: 'getEvent',
  tags: ['Events'],
  summary: 'An event',
  security: authenticated,
  request: { params: eventId },
  responses: {
    200: jsonResponse('The event', singleDocument(eventResourceSchema)),
    ...authenticatedErrors(403, 404),
  },
});

export const listEventDeliveriesRoute = createRoute({
  method: 'get',
  path: '/events/{id}/deliveries',
  operationId: 'listEventDeliveries',
  tags: ['Events'],
  summary:
    "The event's deliveries, one per endpoint it went to (deleted endpoints' included), newest first, each with " +
    'its attempts',
  security: authenticated,
  request: { params: eventId, query: listQuery({}) },
  responses: {
    200: jsonResponse('A page of deliveries', listDocument(deliveryResourceSchema)),
    ...authenticatedErrors(400, 403, 404),
  },
});

export const redeliverEventRoute = createRoute({
  method: 'post',
  path: '/events/{id}/redeliver',
  operationId: 'redeliverEvent',
  tags: ['Events'],
  summary:
    'Deliver an event again. With endpointId, to that endpoint only (reopening its delivery, or creating one). ' +
    'Without a body (or `{}`, or without endpointId): every existing delivery of the event, plus every enabled endpoint ' +
    'subscribed to its type that has none; deleted and disabled endpoints are left out.',
  security: authenticated,
  // No body, or `Content-Length: 0`, with or without `Content-Type: application/json`: the same as `{}`.
  middleware: optionalBody(),
  request: {
    params: eventId,
    body: { required: false, content: { 'application/json': { schema: redeliverBodySchema } } },
  },
  responses: {
    202: jsonResponse(
      'The deliveries reopened or created, queued for delivery',
      z.object({ data: z.array(deliveryResourceSchema) }),
    ),
    ...authenticatedBodyErrors(403, 404, 422),
  },
});

/** Every webhook and event route, for the OpenAPI document. */
export const webhooksRoutes = [
  createWebhookRoute,
  listWebhooksRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  rotateWebhookSecretRoute,
  testWebhookRoute,
  recoverWebhookRoute,
  listWebhookDeliveriesRoute,
  listEventsRoute,
  getEventRoute,
  listEventDeliveriesRoute,
  redeliverEventRoute,
];
