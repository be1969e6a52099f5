import { z } from '@hono/zod-openapi';
import { paymentTypes } from '../db/schema/payments';
import { listQuery } from '../http/pagination';
import { paymentStatuses } from '../states/payment-states';
import { centsParam, checkedParam, instantParam, isoDateParam } from './query-params';

// GET /payments's query: its filters, each one the console's too (docs/api.md, List payments).

const merchantQuery = (name: 'id' | 'merchantId', description: string) =>
  z
    .string()
    .optional()
    .openapi({ param: { name, in: 'query' }, description, example: 'mer_…' });

export const listPaymentsQuerySchema = listQuery(
  {
    id: merchantQuery('id', "Merchant id, the spec's name for merchantId (both given must name the same merchant)"),
    merchantId: merchantQuery(
      'merchantId',
      "Only this merchant's records, as primary or as split merchant; without it (or id), the account's",
    ),
    status: z.enum(paymentStatuses).optional(),
    paymentType: z
      .enum(paymentTypes)
      .optional()
      .openapi({ param: { name: 'paymentType', in: 'query' }, description: 'Only records of this type' }),
    invoice: z
      .string()
      .optional()
      // An empty value is no filter, as an empty cursor is no cursor.
      .transform((value) => (value ? value : undefined))
      .openapi({
        type: 'string',
        param: { name: 'invoice', in: 'query' },
        description: 'Only records whose invoice is exactly this',
        example: 'INV-1',
      }),
    last4: checkedParam((value) => /^\d{4}$/.test(value), "last4 must be the card's last four digits").openapi({
      type: 'string',
      pattern: '^\\d{4}$',
      param: { name: 'last4', in: 'query' },
      description: "Only records of the card whose last four digits these are (a payment, and its refunds' records)",
      example: '4242',
    }),
    customerEmail: checkedParam(
      (value) => value.length <= 254 && z.email().safeParse(value).success,
      'customerEmail must be an email address',
    ).openapi({
      type: 'string',
      format: 'email',
      param: { name: 'customerEmail', in: 'query' },
      description:
        'Only records paid with a vault token of a customer with this email (in any case); a token without a ' +
        'customer never matches',
      example: 'ada@example.com',
    }),
    amountGte: centsParam('amountGte', 'Amount at least this many cents (inclusive)'),
    amountLte: centsParam('amountLte', 'Amount at most this many cents (inclusive)'),
    createdGte: instantParam('createdGte', 'Created at or after this instant (inclusive)'),
    createdLte: instantParam('createdLte', 'Created at or before this instant (inclusive)'),
    startDate: isoDateParam('startDate').openapi({ description: 'Created at or after (inclusive)' }),
    endDate: isoDateParam('endDate').openapi({ description: 'Created before (exclusive)' }),
  },
  {
    type: 'the record type filter is paymentType',
    merchant: 'the merchant is id or merchantId',
    email: 'the customer filter is customerEmail',
    amount: 'the amount filters are amountGte and amountLte, in cents',
  },
);
