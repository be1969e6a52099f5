import { z } from '@hono/zod-openapi';
import { eventTypes } from '../events/outbox';
import { listQuery } from '../http/pagination';
import { strictObject } from '../http/strict-body';
import { API_VERSIONS, NEWEST_VERSION } from '../versions/versions';
import { requestEnvelope } from './common';

// What clients send about webhook endpoints and events: the bodies of POST and PATCH /webhooks, of a redelivery and
// of a recovery, and the events list's query (docs/design.md). The resources and routes are in webhooks.ts.

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
