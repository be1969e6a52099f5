import { createRoute, z } from '@hono/zod-openapi';
import { balanceTransactionTypes } from '../db/schema/payouts';
import { listQuery } from '../http/pagination';
import { isId } from '../ids';
import {
  authenticated,
  authenticatedErrors,
  idParam,
  isoTimestamp,
  jsonResponse,
  listDocument,
  resourceSchema,
  signedCentsString,
  singleDocument,
} from './common';
import { isoDateParam } from './query-params';

// ── responses ──────────────────────────────────────────────────────────────────
export const balanceResourceSchema = resourceSchema(
  'balances',
  z.object({
    currency: z.literal('USD'),
    pending: signedCentsString.openapi({ description: 'Captured, not yet settled' }),
    available: signedCentsString.openapi({ description: 'Settled, not yet paid out' }),
    inTransit: signedCentsString.openapi({ description: "Paid out, not yet at the merchant's bank" }),
  }),
).openapi('Balance');
export type BalanceResource = z.infer<typeof balanceResourceSchema>;

export const balanceTransactionResourceSchema = resourceSchema(
  'balanceTransactions',
  z.object({
    type: z.enum(balanceTransactionTypes),
    amount: signedCentsString.openapi({ description: 'net + fee' }),
    fee: signedCentsString.openapi({
      description: "The operator's fees (a capture's; negative on its void or return)",
    }),
    net: signedCentsString.openapi({ description: "What the merchant's pending + available + in-transit total moved" }),
    currency: z.literal('USD'),
    sourceId: z.string().openapi({ example: 'pay_…', description: 'The payment, refund, split or payout record' }),
    status: z.enum(['pending', 'available']),
    availableOn: isoTimestamp.openapi({ description: 'When the money is (or became) available' }),
    payoutId: z.string().nullable().openapi({ description: 'The payout that carries it (or is it), if any' }),
    createdAt: isoTimestamp,
  }),
).openapi('BalanceTransaction');
export type BalanceTransactionResource = z.infer<typeof balanceTransactionResourceSchema>;

// ── routes ─────────────────────────────────────────────────────────────────────
const merchantId = idParam('Merchant id', 'mer_…');

export const getBalanceRoute = createRoute({
  method: 'get',
  path: '/merchants/{id}/balance',
  operationId: 'getMerchantBalance',
  tags: ['Balances'],
  summary: "A merchant's pending, available and in-transit balances, from the ledger",
  security: authenticated,
  request: { params: merchantId },
  responses: {
    200: jsonResponse('The balances', singleDocument(balanceResourceSchema)),
    ...authenticatedErrors(403, 404),
  },
});

export const listBalanceTransactionsQuerySchema = listQuery(
  {
    type: z
      .enum(balanceTransactionTypes)
      .optional()
      .openapi({ param: { name: 'type', in: 'query' }, description: 'Only balance transactions of this type' }),
    // A payout id or nothing: anything else is a 400 before it can reach a statement (a NUL PostgreSQL refuses).
    payoutId: z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (!value) return undefined;
        if (isId('payout', value)) return value;
        ctx.addIssue({ code: 'custom', message: 'payoutId must be a payout id (po_…)' });
        return z.NEVER;
      })
      .openapi({
        type: 'string',
        param: { name: 'payoutId', in: 'query' },
        description: 'Only those this payout carries (or is)',
        example: 'po_…',
      }),
    startDate: isoDateParam('startDate').openapi({ description: 'Created at or after (inclusive)' }),
    endDate: isoDateParam('endDate').openapi({ description: 'Created before (exclusive)' }),
  },
  { id: "the merchant is the path's {id}", merchantId: "the merchant is the path's {id}" },
);

export const listBalanceTransactionsRoute = createRoute({
  method: 'get',
  path: '/merchants/{id}/balance-transactions',
  operationId: 'listBalanceTransactions',
  tags: ['Balances'],
  summary: "A merchant's balance transactions, newest first",
  security: authenticated,
  request: { params: merchantId, query: listBalanceTransactionsQuerySchema },
  responses: {
    200: jsonResponse('A page of balance transactions', listDocument(balanceTransactionResourceSchema)),
    ...authenticatedErrors(400, 403, 404),
  },
});

export const getAccountBalanceRoute = createRoute({
  method: 'get',
  path: '/balance',
  operationId: 'getAccountBalance',
  tags: ['Balances'],
  summary: "The account's pending, available and in-transit balances: its merchants' balances summed",
  security: authenticated,
  responses: {
    200: jsonResponse("The balances (the id is the account's)", singleDocument(balanceResourceSchema)),
    ...authenticatedErrors(403),
  },
});

export const balancesRoutes = [getAccountBalanceRoute, getBalanceRoute, listBalanceTransactionsRoute];
