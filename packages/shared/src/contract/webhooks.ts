import { createRoute, z } from '@hono/zod-openapi';
import { paginationQuery } from '../http/pagination';
import {
  authenticated,
  errorResponses,
  idParam,
  isoTimestamp,
  jsonBody,
  jsonResponse,
  listDocument,
  requestEnvelope,
  resourceSchema,
  singleDocument,
} from './common';

// Webhook endpoints and events (DESIGN §14). Declared now so clients see the whole contract;
// the payments service answers 501 on them until the webhooks work lands.

const webhookAttributes = z.object({
  url: z.string().url(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  secret: z.string().optional().openapi({ description: 'whsec_…, shown once on creation' }),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});
const webhookResource = resourceSchema('webhooks', webhookAttributes).openapi('WebhookEndpoint');
const webhookInput = z.object({
  url: z.string().url().openapi({ example: 'https://example.com/hooks/pps' }),
  events: z
    .array(z.string())
    .min(1)
    .openapi({ example: ['payment.completed', 'payment.failed'] }),
  description: z.string().max(500).optional(),
});
const eventResource = resourceSchema(
  'events',
  z.object({
    type: z.string(),
    resourceType: z.string(),
    resourceId: z.string(),
    payload: z.unknown(),
    createdAt: isoTimestamp,
  }),
).openapi('Event');
const deliveryResource = resourceSchema(
  'deliveries',
  z.object({
    eventId: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    nextAttemptAt: isoTimestamp.nullable(),
  }),
).openapi('WebhookDelivery');

const common = { security: authenticated };
const webhookId = idParam('Webhook endpoint id', 'whk_…');
const eventId = idParam('Event id', 'evt_…');
const notBuilt = errorResponses(400, 401, 403, 404, 501);

export const webhooksRoutes = [
  createRoute({
    ...common,
    method: 'post',
    path: '/webhooks',
    tags: ['Webhooks'],
    summary: 'Subscribe a URL to events; the signing secret is shown once',
    request: { body: jsonBody(requestEnvelope('webhooks', webhookInput)) },
    responses: { 201: jsonResponse('The endpoint', singleDocument(webhookResource)), ...notBuilt },
  }),
  createRoute({
    ...common,
    method: 'get',
    path: '/webhooks',
    tags: ['Webhooks'],
    summary: 'List webhook endpoints',
    request: { query: z.object(paginationQuery) },
    responses: { 200: jsonResponse('Endpoints', listDocument(webhookResource)), ...notBuilt },
  }),
  createRoute({
    ...common,
    method: 'get',
    path: '/webhooks/{id}',
    tags: ['Webhooks'],
    summary: 'A webhook endpoint',
    request: { params: webhookId },
    responses: { 200: jsonResponse('The endpoint', singleDocument(webhookResource)), ...notBuilt },
  }),
  createRoute({
    ...common,
    method: 'put',
    path: '/webhooks/{id}',
    tags: ['Webhooks'],
    summary: 'Change a webhook endpoint (url, events, description, enabled)',
    request: { params: webhookId, body: jsonBody(requestEnvelope('webhooks', webhookInput.partial())) },
    responses: { 200: jsonResponse('The endpoint', singleDocument(webhookResource)), ...notBuilt },
  }),
  createRoute({
    ...common,
    method: 'delete',
    path: '/webhooks/{id}',
    tags: ['Webhooks'],
    summary: 'Remove a webhook endpoint',
    request: { params: webhookId },
    responses: { 204: { description: 'Removed' }, ...notBuilt },
  }),
  createRoute({
    ...common,
    method: 'post',
    path: '/webhooks/{id}/rotate-secret',
    tags: ['Webhooks'],
    summary: 'New signing secret; the old one still signs for 24 h',
    request: { params: webhookId },
    responses: { 200: jsonResponse('The endpoint with its new secret', singleDocument(webhookResource)), ...notBuilt },
  }),
  createRoute({
    ...common,
    method: 'post',
    path: '/webhooks/{id}/test',
    tags: ['Webhooks'],
    summary: 'Send a webhook.test event to the endpoint',
    request: { params: webhookId },
    responses: { 202: jsonResponse('The test event', singleDocument(eventResource)), ...notBuilt },
  }),
  createRoute({
    ...common,
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    tags: ['Webhooks'],
    summary: 'Delivery attempts to the endpoint',
    request: { params: webhookId, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse('Deliveries', listDocument(deliveryResource)), ...notBuilt },
  }),
  createRoute({
    ...common,
    method: 'get',
    path: '/events',
    tags: ['Events'],
    summary: "The account's events, newest first",
    request: { query: z.object(paginationQuery) },
    responses: { 200: jsonResponse('Events', listDocument(eventResource)), ...notBuilt },
  }),
  createRoute({
    ...common,
    method: 'get',
    path: '/events/{id}',
    tags: ['Events'],
    summary: 'An event',
    request: { params: eventId },
    responses: { 200: jsonResponse('The event', singleDocument(eventResource)), ...notBuilt },
  }),
  createRoute({
    ...common,
    method: 'post',
    path: '/events/{id}/redeliver',
    tags: ['Events'],
    summary: 'Deliver an event again to every subscribed endpoint',
    request: { params: eventId },
    responses: { 202: jsonResponse('The event', singleDocument(eventResource)), ...notBuilt },
  }),
];
