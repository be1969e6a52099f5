import { createRoute, z } from '@hono/zod-openapi';
import { listQuery } from '../http/pagination';
import { strictObject } from '../http/strict-body';
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

// ── card rules (shared by the contract, the vault and the sandbox processor) ─────
export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'unknown';

/** Clients may group the digits: spaces and dashes are dropped. */
export const normalizeCardNumber = (value: string) => value.replace(/[\s-]/g, '');

/** The Luhn (mod 10) check of a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The brand by issuer prefix: Visa 4; Mastercard 51–55, 2221–2720; Amex 34, 37; Discover 6011, 65, 644–649. */
export function cardBrandOf(digits: string): CardBrand {
  const two = Number(digits.slice(0, 2));
  const three = Number(digits.slice(0, 3));
  const four = Number(digits.slice(0, 4));
  if (digits.startsWith('4')) return 'visa';
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  if (two === 34 || two === 37) return 'amex';
  if (four === 6011 || two === 65 || (three >= 644 && three <= 649)) return 'discover';
  return 'unknown';
}

/** Issues carrying `params.code` are reported with that error code instead of `invalid_field`. */
const coded = (code: string, message: string) => ({ message, params: { code } });

export const CARD_NUMBER_LENGTH = { min: 12, max: 19 } as const;

const cardNumber = z
  .string()
  .superRefine((value, ctx) => {
    const digits = normalizeCardNumber(value);
    if (!/^\d+$/.test(digits) || digits.length < CARD_NUMBER_LENGTH.min || digits.length > CARD_NUMBER_LENGTH.max) {
      ctx.addIssue({ code: 'custom', ...coded('invalid_card_number', 'card number must be 12 to 19 digits') });
    } else if (!luhnValid(digits)) {
      ctx.addIssue({ code: 'custom', ...coded('invalid_card_number', 'card number is not valid (Luhn check)') });
    }
  })
  .transform(normalizeCardNumber)
  .openapi({ example: '4111 1111 1111 1111', description: 'Digits; spaces and dashes are ignored' });

const cardExpiry = z
  .string()
  .refine((value) => /^(0[1-9]|1[0-2])\d{2}$/.test(value), coded('invalid_expiry', 'expiry must be MMYY (month 01–12)'))
  .openapi({
    example: '1230',
    pattern: '^(0[1-9]|1[0-2])\\d{2}$',
    description: 'MMYY; valid through the end of that month',
  });

const securityCode = z
  .string()
  .refine((value) => /^\d{3,4}$/.test(value), coded('invalid_security_code', 'security code must be 3 or 4 digits'))
  .openapi({
    example: '123',
    pattern: '^\\d{3,4}$',
    description: 'Checked, never stored: 3 or 4 digits, 4 for American Express',
  });

/** The card of a vault token request (POST /tokens, and the hosted checkout form's POST). */
export const cardInput = strictObject({
  holder: z.string().trim().min(1).max(200).openapi({ example: 'Jane Doe' }),
  number: cardNumber,
  expiry: cardExpiry,
  code: securityCode,
}).superRefine((card, ctx) => {
  if (cardBrandOf(card.number) === 'amex' && /^\d{3,4}$/.test(card.code) && card.code.length !== 4) {
    ctx.addIssue({
      code: 'custom',
      path: ['code'],
      ...coded('invalid_security_code', 'an American Express security code has 4 digits'),
    });
  }
});

const addressPart = (max: number) => z.string().trim().max(max).optional();

/** A billing address: every part optional; blank parts are dropped. */
export const tokenBillingAddressSchema = strictObject({
  line1: addressPart(200),
  line2: addressPart(200),
  city: addressPart(100),
  state: addressPart(100),
  zip: addressPart(20),
  country: addressPart(3),
}).openapi('TokenBillingAddress');

export const createTokenBodySchema = requestEnvelope(
  'tokens',
  strictObject({
    tokenType: z.literal('card').openapi({ example: 'card' }),
    card: cardInput,
    billingAddress: tokenBillingAddressSchema.optional(),
    customerId: z.string().min(1).max(64).optional().openapi({ example: 'cus_…' }),
    label: z.string().trim().max(100).optional().openapi({ example: 'Work Visa' }),
  }),
).openapi('TokenCreateRequest');

export type CreateTokenBody = z.output<typeof createTokenBodySchema>;
export type TokenInput = CreateTokenBody['data']['attributes'];

// ── response ───────────────────────────────────────────────────────────────────
export const tokenAttributesSchema = z.object({
  tokenType: z.literal('card'),
  label: z.string().nullable(),
  customerId: z.string().nullable(),
  card: z.object({
    brand: z.string().openapi({ example: 'visa' }),
    last4: z.string().openapi({ example: '1111' }),
    expiry: z.string().openapi({ example: '1230' }),
    holder: z.string(),
  }),
  billingAddress: tokenBillingAddressSchema.nullable(),
  createdAt: isoTimestamp,
});

export const tokenResourceSchema = resourceSchema('tokens', tokenAttributesSchema).openapi('Token');

// ── routes ─────────────────────────────────────────────────────────────────────
export const createTokenRoute = createRoute({
  method: 'post',
  path: '/tokens',
  operationId: 'createToken',
  tags: ['Vault'],
  summary: 'Vault a card: returns a token; the number is encrypted at rest, the security code never stored',
  security: authenticated,
  request: { body: jsonBody(createTokenBodySchema) },
  responses: {
    201: jsonResponse('The vault token', singleDocument(tokenResourceSchema)),
    ...authenticatedBodyErrors(403),
  },
});

export const getTokenRoute = createRoute({
  method: 'get',
  path: '/tokens/{id}',
  operationId: 'getToken',
  tags: ['Vault'],
  summary: 'Retrieve a vault token (brand, last four, expiry, holder; never the number)',
  security: authenticated,
  request: { params: idParam('Token id', 'tok_…') },
  responses: {
    200: jsonResponse('The vault token', singleDocument(tokenResourceSchema)),
    ...authenticatedErrors(403, 404),
  },
});

export const listTokensQuerySchema = listQuery(
  {
    customerId: z
      .string()
      .optional()
      .openapi({
        param: { name: 'customerId', in: 'query' },
        description: "Only this customer's tokens",
        example: 'cus_…',
      }),
  },
  { merchantId: "vault tokens are the account's, not a merchant's: filter by customerId" },
);

export const listTokensRoute = createRoute({
  method: 'get',
  path: '/tokens',
  operationId: 'listTokens',
  tags: ['Vault'],
  summary: 'The account’s vault tokens, newest first',
  security: authenticated,
  request: { query: listTokensQuerySchema },
  responses: {
    200: jsonResponse('A page of vault tokens', listDocument(tokenResourceSchema)),
    ...authenticatedErrors(400, 403),
  },
});

export const tokensRoutes = [createTokenRoute, getTokenRoute, listTokensRoute];
