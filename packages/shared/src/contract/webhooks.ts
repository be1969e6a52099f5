import { createRoute, z } from '@hono/zod-openapi';
import { deliveryStatuses } from '../db/schema/webhooks';
import { optionalBody } from '../http/body';
import { listQuery } from '../http/pagination';
import { API_VERSIONS } from '../versions/versions';
import {
  authenticated,
  authenticatedBodyErrors,
  authenticatedErrors,
  idParam,
  isoTimestamp,
  jsonBody,
  jsonResponse,
  listDocument,
  resourceSchema,
  singleDocument,
} from './common';
import {
  createWebhookBodySchema,
  listEventsQuerySchema,
  recoverBodySchema,
  redeliverBodySchema,
  updateWebhookBodySchema,
} from './webhooks.requests';

export * from './webhooks.requests';

// Webhook endpoints, their deliveries, and the account's events (docs/design.md): the resources and the routes.
// What clients send (bodies, the events list's query) is in webhooks.requests.ts.

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
