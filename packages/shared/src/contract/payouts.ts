import { createRoute, z } from '@hono/zod-openapi';
import { configSchema } from '../config/config';
import { balanceTransactionTypes, payoutMethods, payoutStatuses } from '../db/schema/payouts';
import { listQuery } from '../http/pagination';
import { strictObject } from '../http/strict-body';
import { type AmountBounds, amountString } from '../money';
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
  signedCentsString,
  singleDocument,
} from './common';
import { paymentIdempotencyHeaders, requestIdField } from './payment-requests';
import { isoDateParam } from './query-params';

/** Payouts (docs/api.md, Payouts): POST /payouts, their listing, one payout, and what it carried. */

// ── request ────────────────────────────────────────────────────────────────────
/**
 * The bounds of a manual payout's amount: those of refund and split amounts (1 cent up to the payment maximum),
 * since a payout moves money a merchant already has, as they do, rather than charging a card.
 */
export const payoutAmountBounds = (max: number): AmountBounds => ({ min: 1, max });

export function createPayoutBodySchema(bounds: AmountBounds) {
  return strictObject({
    data: strictObject({
      type: z.literal('payouts').openapi({ example: 'payouts' }),
      requestId: requestIdField,
      attributes: strictObject({
        merchantId: z.string().trim().min(1).max(64).openapi({ example: 'mer_…' }),
        amount: amountString(bounds)
          .optional()
          .openapi({ description: 'Cents to pay out, at most the available balance; absent: all of it' }),
      }),
    }),
  }).openapi('PayoutCreateRequest');
}
export type CreatePayoutBody = z.output<ReturnType<typeof createPayoutBodySchema>>;

// ── responses ──────────────────────────────────────────────────────────────────
export const payoutAttributesSchema = z.object({
  merchantId: z.string(),
  amount: signedCentsString.openapi({
    description: 'Cents paid to the bank account; negative for the debit of a balance that stayed negative',
  }),
  currency: z.string().openapi({ example: 'USD' }),
  status: z.enum(payoutStatuses),
  method: z.enum(payoutMethods).openapi({
    description:
      'automatic (the schedule), manual (POST /payouts), or negative_balance_debit: an ACH debit of the bank ' +
      'account for an available balance negative NEGATIVE_BALANCE_DEBIT_DAYS business days',
  }),
  arrivalDate: z
    .string()
    .openapi({ format: 'date', example: '2026-11-24', description: 'The business day the deposit is due (Pacific)' }),
  bank: z
    .object({ last4: z.string(), routingLast4: z.string() })
    .openapi({ description: 'The bank account paid: the version in force when the payout was made' }),
  traceNumber: z.string().nullable().openapi({ description: "The NACHA credit's trace number, once filed" }),
  failureCode: z.string().nullable().openapi({ example: 'R01' }),
  failureMessage: z.string().nullable(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
  paidAt: isoTimestamp.nullable(),
  failedAt: isoTimestamp.nullable(),
});

export const payoutResourceSchema = resourceSchema('payouts', payoutAttributesSchema).openapi('Payout');
export type PayoutResource = z.infer<typeof payoutResourceSchema>;

const reconciliationItem = z
  .object({
    balanceTransactionId: z.string().nullable().openapi({ description: 'null on the two carried-forward rows' }),
    type: z.enum([...balanceTransactionTypes, 'brought_forward', 'carried_forward']),
    sourceId: z
      .string()
      .nullable()
      .openapi({ description: 'The payment, refund, split or payout record that moved the money' }),
    amount: signedCentsString,
    fee: signedCentsString,
    net: signedCentsString,
    availableOn: isoTimestamp.nullable(),
    createdAt: isoTimestamp.nullable(),
  })
  .openapi('PayoutReconciliationItem');

const cents = { amount: signedCentsString, fee: signedCentsString, net: signedCentsString };

export const payoutReconciliationSchema = resourceSchema(
  'payoutReconciliations',
  z.object({
    payoutId: z.string(),
    merchantId: z.string(),
    amount: signedCentsString,
    currency: z.string(),
    status: z.enum(payoutStatuses),
    items: z.array(reconciliationItem).openapi({
      description:
        'Oldest first: what the previous payout left (brought_forward), the balance transactions this payout ' +
        'carried, and what it left for the next one (carried_forward); their net adds up to the payout amount',
    }),
    totals: z.object({ count: z.number().int(), ...cents }).openapi({ description: 'net equals the payout amount' }),
  }),
).openapi('PayoutReconciliation');
export type PayoutReconciliation = z.infer<typeof payoutReconciliationSchema>;

// ── routes ─────────────────────────────────────────────────────────────────────
const configDefaults = configSchema.parse({});
const payoutId = idParam('Payout id', 'po_…');

/** POST /payouts with the amount bounds of a running service's config (the documented one uses the defaults). */
export const createPayoutRouteFor = (bounds: AmountBounds) =>
  createRoute({
    method: 'post',
    path: '/payouts',
    operationId: 'createPayout',
    tags: ['Payouts'],
    summary: "Pay out an active merchant's available balance now, whole or in part",
    description:
      'A manual payout: a NACHA credit to the merchant’s bank account, arriving the next business day. With ' +
      'data.requestId, or the same key in the Idempotency-Key header, the call is idempotent per account like ' +
      'POST /payments: a replay answers the first response with Idempotent-Replayed: true.',
    security: authenticated,
    request: { headers: paymentIdempotencyHeaders, body: jsonBody(createPayoutBodySchema(bounds)) },
    responses: {
      201: jsonResponse('The payout', singleDocument(payoutResourceSchema)),
      ...authenticatedBodyErrors(403, 404, 409, 422),
    },
  });

export const createPayoutRoute = createPayoutRouteFor(payoutAmountBounds(configDefaults.MAX_AMOUNT_CENTS));

export const listPayoutsQuerySchema = listQuery(
  {
    merchantId: z
      .string()
      .optional()
      .openapi({ param: { name: 'merchantId', in: 'query' }, description: 'Only this merchant', example: 'mer_…' }),
    status: z.enum(payoutStatuses).optional(),
    startDate: isoDateParam('startDate').openapi({ description: 'Created at or after (inclusive)' }),
    endDate: isoDateParam('endDate').openapi({ description: 'Created before (exclusive)' }),
  },
  { id: 'the merchant filter is merchantId', merchant: 'the merchant filter is merchantId' },
);

export const listPayoutsRoute = createRoute({
  method: 'get',
  path: '/payouts',
  operationId: 'listPayouts',
  tags: ['Payouts'],
  summary: "The account's payouts, or one merchant's, newest first",
  security: authenticated,
  request: { query: listPayoutsQuerySchema },
  responses: {
    200: jsonResponse('A page of payouts', listDocument(payoutResourceSchema)),
    ...authenticatedErrors(400, 403),
  },
});

export const getPayoutRoute = createRoute({
  method: 'get',
  path: '/payouts/{id}',
  operationId: 'getPayout',
  tags: ['Payouts'],
  summary: 'Retrieve a payout',
  security: authenticated,
  request: { params: payoutId },
  responses: {
    200: jsonResponse('The payout', singleDocument(payoutResourceSchema)),
    ...authenticatedErrors(403, 404),
  },
});

export const getPayoutReconciliationRoute = createRoute({
  method: 'get',
  path: '/payouts/{id}/reconciliation',
  operationId: 'getPayoutReconciliation',
  tags: ['Payouts'],
  summary: 'The balance transactions a payout carried, with totals equal to its amount; JSON or CSV (Accept)',
  security: authenticated,
  request: { params: payoutId },
  responses: {
    200: {
      description: 'The reconciliation: JSON, or with Accept: text/csv a header row, one row per item and a totals row',
      content: {
        'application/json': { schema: singleDocument(payoutReconciliationSchema) },
        'text/csv': { schema: z.string().openapi({ example: 'balanceTransactionId,type,sourceId,amount,fee,net,…' }) },
      },
    },
    ...authenticatedErrors(403, 404),
  },
});

export const payoutsRoutes = [createPayoutRoute, listPayoutsRoute, getPayoutRoute, getPayoutReconciliationRoute];
