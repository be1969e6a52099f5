import { createRoute, z } from '@hono/zod-openapi';
import { configSchema } from '../config/config';
import { strictObject } from '../http/strict-body';
import type { AmountBounds } from '../money';
import { paymentStatuses } from '../states/payment-states';
import {
  authenticated,
  authenticatedBodyErrors,
  authenticatedErrors,
  centsString,
  idParam,
  isoTimestamp,
  jsonBody,
  jsonResponse,
  listDocument,
  resourceSchema,
  singleDocument,
} from './common';
import { listPaymentLedgerEntriesRoute } from './payment-ledger';
import { listPaymentsQuerySchema } from './payment-list-query';
import { billingAddress, createPaymentBodySchema, paymentIdempotencyHeaders } from './payment-requests';

export * from './payment-ledger';
export * from './payment-list-query';
export * from './payment-requests';
export { isoDateParam } from './query-params';

// ── response ───────────────────────────────────────────────────────────────────
export const paymentTransactionSchema = z.object({
  code: z.string().openapi({ example: '0' }),
  message: z.string().openapi({ example: 'Approved' }),
  amount: centsString,
  currency: z.string(),
  invoice: z.string().optional(),
  authCode: z.string().nullable().optional(),
  avsResult: z.string().nullable().optional(),
  gross: centsString,
  net: centsString,
  grossMinusNet: centsString,
  fee: centsString,
  rate: z.string().openapi({ example: '2.9' }),
  refundType: z.enum(['void', 'refund']).optional(),
  returnCode: z.string().optional(),
});

export const paymentAttributesResponseSchema = z.object({
  paymentType: z.enum(['card', 'ACH', 'refund', 'refundSplit', 'secondSplit', 'capture']),
  merchantId: z.string(),
  parentPaymentId: z.string().optional(),
  status: z.enum(paymentStatuses),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
  settleAt: isoTimestamp.nullable(),
  settledAt: isoTimestamp.nullable(),
  transaction: paymentTransactionSchema,
  card: z.object({ brand: z.string(), last4: z.string(), expiry: z.string(), holder: z.string() }).optional(),
  billingAddress: billingAddress.nullable().optional(),
  bank: z
    .object({
      bankName: z.string(),
      accountType: z.string(),
      accountName: z.string(),
      last4: z.string(),
      routingLast4: z.string(),
    })
    .optional()
    .openapi({ description: 'ACH: the debited account, masked' }),
  StandardEntryClassCode: z.enum(['WEB', 'PPD', 'CCD', 'TEL']).optional(),
  traceNumber: z
    .string()
    .nullable()
    .optional()
    .openapi({
      description:
        "ACH: its entry's trace number in the NACHA file (unique across files, what a bank return names); null until " +
        'the record is filed, and for a debit returned before it was',
    }),
  splits: z
    .array(
      z.object({
        merchantId: z.string(),
        amount: centsString,
        status: z.string(),
        refundableAmount: centsString.openapi({ description: 'What refundSplit may still take of this share' }),
      }),
    )
    .optional(),
  refunds: z
    .array(
      z.object({
        id: z.string(),
        type: z.enum(['void', 'refund', 'refundSplit']),
        amount: centsString,
        status: z.enum(paymentStatuses),
        createdAt: isoTimestamp,
      }),
    )
    .optional()
    .openapi({ description: 'The void, refund and split-refund records of the payment, oldest first' }),
  miscData: z.string().nullable(),
  refundableAmount: centsString.openapi({
    description: "What a refund may still take of the primary merchant's share",
  }),
  voidableUntil: isoTimestamp
    .nullable()
    .openapi({ description: 'End of the void window (Pacific day); null once voided, refunded, touched or past it' }),
  authorizationExpiresAt: isoTimestamp.optional().openapi({
    description: 'An authorization (capture: false): until when it can be captured; after it, it is voided',
  }),
  capturedAt: isoTimestamp.optional().openapi({ description: 'An authorization captured: when' }),
  voidReason: z
    .enum(['authorization_expired', 'cancelled', 'authentication_abandoned'])
    .optional()
    .openapi({
      description:
        'Why a payment was voided when no client voided it: an authorization cancelled by a full refund, or lapsed; ' +
        'a 3-D Secure challenge nobody finished in 15 minutes',
    }),
  nextAction: z
    .object({ type: z.literal('redirect'), url: z.string() })
    .optional()
    .openapi('NextAction', {
      description: "requires_action: send the cardholder's browser to url, the challenge page (single use, 15 minutes)",
    }),
  threeDSecure: z
    .object({
      flow: z.enum(['frictionless', 'challenge']).nullable(),
      result: z.enum(['authenticated', 'failed', 'not_enrolled', 'abandoned']).nullable(),
      version: z.literal('2.2.0'),
      eci: z.string().nullable(),
    })
    .optional()
    .openapi('ThreeDSecure', {
      description:
        'A card payment sent with authentication: how the cardholder was authenticated (result null while the ' +
        'challenge waits)',
    }),
  disputed: z
    .boolean()
    .optional()
    .openapi({ description: 'A card payment: whether its cardholder has disputed it (GET /disputes?paymentId=…)' }),
  disputes: z
    .array(z.string())
    .optional()
    .openapi({ description: 'A card payment: the ids of its disputes, oldest first', example: ['dp_…'] }),
});

export const paymentResourceSchema = resourceSchema('payments', paymentAttributesResponseSchema).openapi('Payment');

const paymentSummarySchema = resourceSchema(
  'payments',
  z.object({
    paymentType: paymentAttributesResponseSchema.shape.paymentType,
    merchantId: z.string(),
    parentPaymentId: z.string().optional(),
    status: z.enum(paymentStatuses),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    transaction: z.object({
      code: z.string(),
      message: z.string(),
      amount: centsString,
      currency: z.string(),
      invoice: z.string().optional(),
      gross: centsString,
      net: centsString,
      grossMinusNet: centsString,
    }),
  }),
).openapi('PaymentSummary');

const paymentStatusSchema = z
  .object({
    data: resourceSchema(
      'payments',
      z.object({
        status: z.enum(paymentStatuses),
        paymentType: paymentAttributesResponseSchema.shape.paymentType,
        amount: centsString,
        currency: z.string(),
        createdAt: isoTimestamp,
        updatedAt: isoTimestamp,
      }),
    ),
  })
  .openapi('PaymentStatus');

const paymentStatesSchema = singleDocument(
  resourceSchema(
    'paymentStates',
    z.object({
      statuses: z.array(z.enum(paymentStatuses)),
      finalStatuses: z.array(z.enum(paymentStatuses)),
      transitions: z.array(z.object({ from: z.enum(paymentStatuses), to: z.enum(paymentStatuses), event: z.string() })),
    }),
  ),
).openapi('PaymentStates');

// ── routes ─────────────────────────────────────────────────────────────────────
const configDefaults = configSchema.parse({});
const defaultBounds: AmountBounds = { min: configDefaults.MIN_AMOUNT_CENTS, max: configDefaults.MAX_AMOUNT_CENTS };

/** POST /payments with the amount bounds of a running service's config (the documented one uses the defaults). */
export const createPaymentRouteFor = (bounds: AmountBounds) =>
  createRoute({
    method: 'post',
    path: '/payments',
    operationId: 'createPayment',
    tags: ['Payments'],
    summary: 'Create a payment; data.attributes.paymentType chooses the operation',
    description:
      'tokenv3, tokenv3Split and card take a payment; refund (a void when the payment is still voidable, else a ' +
      'refund), refundSplit and secondSplit act on the payment named by parentPaymentId; ACH debits a bank account. ' +
      'With data.requestId, or the same key in the Idempotency-Key header, the call is idempotent per account: a ' +
      'replay answers the first response with Idempotent-Replayed: true.',
    security: authenticated,
    request: { headers: paymentIdempotencyHeaders, body: jsonBody(createPaymentBodySchema(bounds)) },
    responses: {
      201: jsonResponse('The payment', singleDocument(paymentResourceSchema)),
      ...authenticatedBodyErrors(402, 403, 404, 409, 422),
    },
  });

export const createPaymentRoute = createPaymentRouteFor(defaultBounds);

export const getPaymentRoute = createRoute({
  method: 'get',
  path: '/payments/{id}',
  operationId: 'getPayment',
  tags: ['Payments'],
  summary: 'Retrieve a payment with its splits, refunds, refundable amount and void window',
  security: authenticated,
  request: { params: idParam('Payment id', 'pay_…') },
  responses: {
    200: jsonResponse('The payment', singleDocument(paymentResourceSchema)),
    ...authenticatedErrors(403, 404),
  },
});

export const getPaymentStatusRoute = createRoute({
  method: 'get',
  path: '/payments/status/{id}',
  operationId: 'getPaymentStatus',
  tags: ['Payments'],
  summary: "A payment's status, lightly",
  security: authenticated,
  request: { params: idParam('Payment id', 'pay_…') },
  responses: { 200: jsonResponse('The status', paymentStatusSchema), ...authenticatedErrors(403, 404) },
});

const paymentListDocument = listDocument(paymentSummarySchema);

/** The payments list's document: `meta.totalCapped` says a total counted only up to its bound. */
const paymentListSchema = paymentListDocument.extend({
  meta: paymentListDocument.shape.meta.extend({
    totalCapped: z
      .literal(true)
      .optional()
      .openapi({
        description:
          "Present when total was counted only up to its bound (100, or the page's end when further): more records " +
          'match than total says',
      }),
  }),
});

export const listPaymentsRoute = createRoute({
  method: 'get',
  path: '/payments',
  operationId: 'listPayments',
  tags: ['Payments'],
  summary: "The account's payments and their children, or one merchant's, newest first",
  security: authenticated,
  request: { query: listPaymentsQuerySchema },
  responses: {
    200: jsonResponse('A page of payments', paymentListSchema),
    ...authenticatedErrors(400, 403),
  },
});

export const paymentStatesRoute = createRoute({
  method: 'get',
  path: '/payments/states',
  operationId: 'getPaymentStates',
  tags: ['Payments'],
  summary: 'The payment state machine: statuses and legal transitions',
  security: authenticated,
  responses: { 200: jsonResponse('The state machine', paymentStatesSchema), ...authenticatedErrors() },
});

/** The answer of a payment's 3-D Secure challenge, as the hosted challenge page sends it (docs/api.md, 3-D Secure). */
export const paymentAuthenticationBodySchema = strictObject({
  data: strictObject({
    type: z.literal('authentications').openapi({ example: 'authentications' }),
    attributes: strictObject({
      token: z.string().min(1).max(200).openapi({
        description: "The challenge's single-use token: the last part of the payment's nextAction.url",
        example: 'tds_…',
      }),
      outcome: z.enum(['completed', 'failed']).openapi({
        description: 'completed: the cardholder authenticated (the payment is then authorized); failed: they did not',
      }),
    }),
  }),
}).openapi('PaymentAuthenticationRequest');

export const answerPaymentAuthenticationRoute = createRoute({
  method: 'post',
  path: '/payments/{id}/authentication',
  operationId: 'answerPaymentAuthentication',
  tags: ['Payments'],
  summary: "Answer a payment's 3-D Secure challenge (what the hosted challenge page sends)",
  description:
    "The sandbox's stand-in for the cardholder: the hosted page at nextAction.url calls this, and a test may too. " +
    'completed authorizes the payment through the processor (pending, or authorized with capture: false, or ' +
    'failed when the issuer declines); failed ends it failed, code authentication_failed. The token works once ' +
    '(410 challenge_expired after that, or once 15 minutes have passed by the account clock); a payment not ' +
    'waiting for its cardholder is 422 payment_not_awaiting_authentication.',
  security: authenticated,
  request: { params: idParam('Payment id', 'pay_…'), body: jsonBody(paymentAuthenticationBodySchema) },
  responses: {
    200: jsonResponse('The payment, authorized or failed', singleDocument(paymentResourceSchema)),
    ...authenticatedBodyErrors(403, 404, 410, 422),
  },
});

export const paymentsRoutes = [
  createPaymentRoute,
  answerPaymentAuthenticationRoute,
  paymentStatesRoute,
  getPaymentStatusRoute,
  getPaymentRoute,
  listPaymentLedgerEntriesRoute,
  listPaymentsRoute,
];
