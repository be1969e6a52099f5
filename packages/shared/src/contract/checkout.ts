import { createRoute, z } from '@hono/zod-openapi';
import { strictObject } from '../http/strict-body';
import {
  authenticated,
  authenticatedBodyErrors,
  authenticatedErrors,
  checkoutClientSecret,
  idParam,
  isoTimestamp,
  jsonBody,
  jsonResponse,
  requestEnvelope,
  resourceSchema,
  singleDocument,
} from './common';
import { cardInput, tokenBillingAddressSchema, tokenResourceSchema } from './tokens';

// ── rules (docs/api.md, Checkout; docs/decisions.md, Checkout) ─────────────────
/** A session lives this long (real time) from its creation. */
export const CHECKOUT_SESSION_TTL_SECONDS = 15 * 60;
/** Vault tokens one session may make: a buyer may retry with another card, a script may not vault a list. */
export const CHECKOUT_SESSION_MAX_TOKENS = 5;
/** Origins a session may allow to frame the form. */
export const CHECKOUT_MAX_ALLOWED_ORIGINS = 10;
/** The header the hosted form sends its client secret in (never a URL). */
export const CLIENT_SECRET_HEADER = 'x-client-secret';

/**
 * An origin as browsers send it: `http` or `https`, a lower-case host name or IPv4 address, an optional port, and
 * nothing else (a trailing slash is tolerated). The same pattern is in the OpenAPI document.
 */
export const ORIGIN_PATTERN = '^https?://[a-z0-9.-]+(:[0-9]{1,5})?/?$';
const ORIGIN = new RegExp(ORIGIN_PATTERN);

/**
 * The origin as the browser compares it for `frame-ancestors` and `postMessage` (`https://shop.example.com`, the
 * default port dropped), or null when `value` is no such origin. The result is safe inside a CSP header.
 */
export function normalizeOrigin(value: string): string | null {
  if (!ORIGIN.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  // A host of dots only, or one the URL parser rewrote (an IPv4 address in short form), is refused.
  const host = url.host;
  if (!/[a-z0-9]/.test(url.hostname) || !value.toLowerCase().includes(`//${host}`)) return null;
  return url.origin;
}

const coded = (code: string, message: string) => ({ message, params: { code } });

const origin = z
  .string()
  .max(300)
  .refine(
    (value) => normalizeOrigin(value) !== null,
    coded('invalid_origin', 'an origin is http(s)://host[:port] in lower case, with no path, query or fragment'),
  )
  .transform((value) => normalizeOrigin(value) as string)
  .openapi({ pattern: ORIGIN_PATTERN, example: 'https://shop.example.com' });

export const createCheckoutSessionBodySchema = requestEnvelope(
  'checkoutSessions',
  strictObject({
    allowedOrigins: z
      .array(origin)
      .min(1, 'allowedOrigins must list at least one origin')
      .max(CHECKOUT_MAX_ALLOWED_ORIGINS, `allowedOrigins may list at most ${CHECKOUT_MAX_ALLOWED_ORIGINS} origins`)
      .transform((origins) => [...new Set(origins)])
      .openapi({
        description:
          'The origins of the pages allowed to embed the hosted form (its Content-Security-Policy frame-ancestors)',
        example: ['https://shop.example.com'],
      }),
    customerId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({ example: 'cus_…', description: 'A customer of the account: the cards vaulted are theirs' }),
    merchantId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({ example: 'mer_…', description: 'A merchant of the account the checkout is for (kept, shown)' }),
  }),
).openapi('CheckoutSessionCreateRequest');

export type CheckoutSessionInput = z.output<typeof createCheckoutSessionBodySchema>['data']['attributes'];

/** The hosted form's POST: the card of POST /tokens, vaulted for the session's account (and customer). */
export const createCheckoutTokenBodySchema = requestEnvelope(
  'tokens',
  strictObject({
    tokenType: z.literal('card').openapi({ example: 'card' }),
    card: cardInput,
    billingAddress: tokenBillingAddressSchema.optional(),
    label: z.string().trim().max(100).optional().openapi({ example: 'Work Visa' }),
  }),
).openapi('CheckoutTokenCreateRequest');

export type CheckoutTokenInput = z.output<typeof createCheckoutTokenBodySchema>['data']['attributes'];

// ── response ───────────────────────────────────────────────────────────────────
export const checkoutSessionStatuses = ['open', 'complete', 'expired'] as const;

export const checkoutSessionAttributesSchema = z.object({
  status: z.enum(checkoutSessionStatuses).openapi({
    description: '`open` until it expires (`expired`) or has made `maxTokens` vault tokens (`complete`)',
  }),
  allowedOrigins: z.array(z.string()),
  customerId: z.string().nullable(),
  merchantId: z.string().nullable(),
  maxTokens: z.number().int().openapi({ example: CHECKOUT_SESSION_MAX_TOKENS }),
  tokenIds: z.array(z.string()).openapi({ description: 'The vault tokens made through the session, oldest first' }),
  expiresAt: isoTimestamp,
  createdAt: isoTimestamp,
  clientSecret: z
    .string()
    .optional()
    .openapi({ description: 'Only in the answer to POST /checkout/sessions: hand it to your page, never store it' }),
});

export const checkoutSessionResourceSchema = resourceSchema(
  'checkoutSessions',
  checkoutSessionAttributesSchema,
).openapi('CheckoutSession');

// ── routes ─────────────────────────────────────────────────────────────────────
export const createCheckoutSessionRoute = createRoute({
  method: 'post',
  path: '/checkout/sessions',
  operationId: 'createCheckoutSession',
  tags: ['Checkout'],
  summary: 'Create a checkout session: the hosted card form may then vault cards for 15 minutes',
  security: authenticated,
  request: { body: jsonBody(createCheckoutSessionBodySchema) },
  responses: {
    201: jsonResponse(
      'The session, with its client secret (shown only here)',
      singleDocument(checkoutSessionResourceSchema),
    ),
    ...authenticatedBodyErrors(403, 404),
  },
});

export const getCheckoutSessionRoute = createRoute({
  method: 'get',
  path: '/checkout/sessions/{id}',
  operationId: 'getCheckoutSession',
  tags: ['Checkout'],
  summary: 'Retrieve a checkout session (never its client secret): status and the tokens it made',
  security: authenticated,
  request: { params: idParam('Checkout session id', 'cs_…') },
  responses: {
    200: jsonResponse('The session', singleDocument(checkoutSessionResourceSchema)),
    ...authenticatedErrors(403, 404),
  },
});

export const createCheckoutTokenRoute = createRoute({
  method: 'post',
  path: '/checkout/sessions/{id}/tokens',
  operationId: 'createCheckoutToken',
  tags: ['Checkout'],
  summary: "The hosted form's card POST: vaults a card as POST /tokens does, authenticated by the client secret",
  security: checkoutClientSecret,
  request: { params: idParam('Checkout session id', 'cs_…'), body: jsonBody(createCheckoutTokenBodySchema) },
  responses: {
    201: jsonResponse('The vault token', singleDocument(tokenResourceSchema)),
    ...authenticatedBodyErrors(403, 404, 422),
  },
});

export const checkoutRoutes = [createCheckoutSessionRoute, getCheckoutSessionRoute, createCheckoutTokenRoute];
