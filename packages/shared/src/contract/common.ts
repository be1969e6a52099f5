import { z } from '@hono/zod-openapi';
import { strictObject } from '../http/strict-body';

/**
 * Request envelope: `{ data: { type, attributes } }`; a wrong `data.type` is a 400, and so is a member it does not
 * take (`unknown_field`); `attributes` are made with `strictObject` too.
 */
export const requestEnvelope = <T extends string, A extends z.ZodTypeAny>(type: T, attributes: A) =>
  strictObject({
    data: strictObject({
      type: z.literal(type).openapi({ example: type }),
      attributes,
    }),
  });

/** A resource object of the response: `{ type, id, attributes }`. */
export const resourceSchema = <T extends string, A extends z.ZodTypeAny>(type: T, attributes: A) =>
  z.object({ type: z.literal(type), id: z.string(), attributes });

export const singleDocument = <R extends z.ZodTypeAny>(resource: R) =>
  z.object({ links: z.object({ self: z.string().url() }), data: resource });

export const listDocument = <R extends z.ZodTypeAny>(resource: R) =>
  z.object({
    links: z.object({ self: z.string().url(), next: z.string().url().nullable() }),
    data: z.array(resource),
    meta: z.object({
      total: z.number().int(),
      limit: z.number().int(),
      offset: z.number().int(),
      hasMore: z.boolean(),
    }),
  });

export const errorDocumentSchema = z
  .object({
    errors: z.array(
      z.object({
        status: z.string().openapi({ example: '400' }),
        code: z.string().openapi({ example: 'invalid_field' }),
        title: z.string().openapi({ example: 'Bad Request' }),
        detail: z.string(),
        source: z.union([z.object({ pointer: z.string() }), z.object({ parameter: z.string() })]).optional(),
      }),
    ),
    meta: z.object({ requestId: z.string() }).catchall(z.unknown()),
  })
  .openapi('ErrorDocument');

const errorDescriptions: Record<number, string> = {
  400: 'Invalid request: every invalid field is listed with its pointer',
  401: 'Missing, malformed, expired or revoked credentials',
  402: 'Payment failed (card declined)',
  403: 'The resource belongs to another account, or the account is not authorized',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body larger than 1 MiB',
  415: 'Body is not application/json',
  422: 'Unprocessable: the request is valid but cannot be carried out',
  429: 'Rate limited: too many calls from this account, or too many failed authentications from this address',
  501: 'Not implemented yet',
};

/** Headers of an error response: a 429 says when to try again (the gateway's rate limits, docs/design.md). */
const errorHeaders: Record<
  number,
  Record<string, { description: string; schema: { type: 'integer'; minimum: number } }>
> = {
  429: {
    'Retry-After': {
      description: 'Whole seconds to wait before trying again (at least 1)',
      schema: { type: 'integer', minimum: 1 },
    },
  },
};

/** Error responses of a route, documented with the shared error document (repeated statuses count once). */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: errorDescriptions[status] ?? 'Error',
        ...(errorHeaders[status] ? { headers: errorHeaders[status] } : {}),
        content: { 'application/json': { schema: errorDocumentSchema } },
      },
    ]),
  );

/** What any call with a JSON body can be refused with: invalid (400), over 1 MiB (413), not JSON (415). */
export const JSON_BODY_ERRORS = [400, 413, 415] as const;

/**
 * What any call of an account (app token or API key) can be refused with: bad credentials (401), rate limited (429:
 * per account, and per address for failed authentications). Operator calls are not rate limited: 401 only.
 */
export const AUTHENTICATED_ERRORS = [401, 429] as const;

/** The error responses of an authenticated call: 401 and 429, plus the route's own. */
export const authenticatedErrors = (...statuses: number[]) => errorResponses(...AUTHENTICATED_ERRORS, ...statuses);

/** The error responses of an authenticated call with a JSON body: 400, 401, 413, 415 and 429, plus the route's own. */
export const authenticatedBodyErrors = (...statuses: number[]) =>
  errorResponses(...AUTHENTICATED_ERRORS, ...JSON_BODY_ERRORS, ...statuses);

/** The error responses of an operator call (`adminSecurity`): 401, plus the route's own. */
export const adminErrors = (...statuses: number[]) => errorResponses(401, ...statuses);

/** The error responses of an operator call with a JSON body: 400, 401, 413 and 415, plus the route's own. */
export const adminBodyErrors = (...statuses: number[]) => errorResponses(401, ...JSON_BODY_ERRORS, ...statuses);

export const jsonBody = <S extends z.ZodTypeAny>(schema: S) => ({
  required: true,
  content: { 'application/json': { schema } },
});

export const jsonResponse = <S extends z.ZodTypeAny>(description: string, schema: S) => ({
  description,
  content: { 'application/json': { schema } },
});

/**
 * The security schemes of the document (components.securitySchemes); the requirements below name them.
 * Authenticated calls send `Authorization: Bearer <app token>`, `x-api-key` and `appId` (docs/design.md).
 */
export const securitySchemes = {
  appToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The app token from POST /auth/token, valid one hour',
  },
  apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: "The account's API key" },
  appId: { type: 'apiKey', in: 'header', name: 'appId', description: 'The app the token was minted for' },
  adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (ADMIN_TOKEN), ops calls only' },
  checkoutClientSecret: {
    type: 'apiKey',
    in: 'header',
    name: 'x-client-secret',
    description:
      "A checkout session's client secret (from POST /checkout/sessions), sent by the hosted card form only: it " +
      'vaults cards for that session until it expires',
  },
} as const;

/** The tags the routes are grouped by, in the order the docs show them. */
export const apiTags = [
  { name: 'Auth', description: 'App keys and app tokens: how a platform gets the credentials of its calls' },
  { name: 'Merchants', description: 'Onboard merchants and keep their bank account and AVS mode up to date' },
  {
    name: 'Vault',
    description: 'Vault cards as tokens; the number is encrypted at rest, the security code never kept',
  },
  {
    name: 'Checkout',
    description:
      'Checkout sessions for the hosted card form (an iframe served by the API), so card numbers never reach the platform',
  },
  {
    name: 'Customers',
    description: "A customer groups a buyer's vault tokens; it may be tied to one of your merchants",
  },
  {
    name: 'Payments',
    description: 'Card, split and ACH payments, with voids, refunds and split refunds (POST /payments by paymentType)',
  },
  {
    name: 'Payouts',
    description:
      "Payouts of merchants' available balances to their bank accounts, by schedule or on demand, and what each carried",
  },
  {
    name: 'Disputes',
    description: "Cardholders' disputes of card payments: the money they take back, evidence, and their outcome",
  },
  { name: 'Reports', description: 'Settlement figures per merchant and day, as JSON or CSV' },
  {
    name: 'Balances',
    description: "A merchant's pending, available and in-transit balances and the balance transactions behind them",
  },
  { name: 'Webhooks', description: 'Signed webhook endpoints (Standard Webhooks), their secrets and deliveries' },
  { name: 'Events', description: "The account's events, as delivered to webhooks, and their redelivery" },
  {
    name: 'Requests',
    description: "The account's request log: every API call of the last 30 days, its status and its redacted bodies",
  },
  { name: 'Sandbox', description: "The account's sandbox clock, to move settlement and void windows forward" },
  { name: 'Versions', description: 'The API versions by date, and what each changed (PPS-Version)' },
  { name: 'Admin', description: 'Operator calls (ops): accounts, merchant status and features, NACHA files' },
];

/** Security requirement of the authenticated calls: the four headers (docs/design.md). */
export const authenticated = [{ appToken: [], apiKey: [], appId: [] }];

/** Security requirement of POST /auth/key and POST /auth/token: the API key alone. */
export const apiKeyOnly = [{ apiKey: [] }];

/** Security requirement of the hosted checkout form's card POST: the session's client secret. */
export const checkoutClientSecret = [{ checkoutClientSecret: [] }];

/** Security requirement of the ops calls under /admin: the operator token. */
export const adminSecurity = [{ adminToken: [] }];

export const isoTimestamp = z.string().openapi({ format: 'date-time', example: '2026-11-22T17:04:05.123Z' });
export const centsString = z.string().regex(/^\d+$/).openapi({ example: '1000', description: 'Integer cents' });
export const signedCentsString = z
  .string()
  .regex(/^-?\d+$/)
  .openapi({ example: '-500', description: 'Integer cents, negative when money left the balance' });

export const idParam = (name: string, example: string) =>
  z.object({
    id: z
      .string()
      .min(1)
      .openapi({ param: { name: 'id', in: 'path' }, example, description: name }),
  });

/**
 * Whether a date falls in a year PostgreSQL's calendar has: year 0 (1 BC, before 1 AD) is well-formed ISO 8601 but
 * no year of it, so a query parameter in it is refused as invalid, never sent.
 */
export const inStorableYear = (date: Date) => date.getUTCFullYear() >= 1;
