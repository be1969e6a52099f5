import { createRoute, z } from '@hono/zod-openapi';
import { postingKinds } from '../db/schema/ledger';
import {
  authenticated,
  authenticatedErrors,
  idParam,
  isoTimestamp,
  jsonResponse,
  resourceSchema,
  signedCentsString,
} from './common';

// A payment's ledger postings (docs/api.md, Ledger postings of a payment; docs/design.md, Ledger).

export const ledgerAccountKinds = ['merchant', 'operator', 'external'] as const;
export type LedgerAccountKind = (typeof ledgerAccountKinds)[number];

export const ledgerEntryResourceSchema = resourceSchema(
  'ledgerEntries',
  z.object({
    postingId: z.string().openapi({
      example: 'lp_…',
      description: "The posting the entry is one line of: a posting's entries sum to zero",
    }),
    kind: z.enum(postingKinds).openapi({ description: 'What the posting records' }),
    recordId: z.string().openapi({
      example: 'pay_…',
      description:
        'The record whose posting it is: the payment itself (its capture, settlement, ACH return), one of its ' +
        'refund, void or split records, or one of its disputes (dp_…)',
    }),
    ledgerAccount: z.string().openapi({
      example: 'merchant:mer_…:pending',
      description:
        'merchant:<id>:pending, merchant:<id>:available, merchant:<id>:in_transit, operator:fees, external:card, ' +
        'external:ach or external:bank',
    }),
    accountKind: z.enum(ledgerAccountKinds),
    amount: signedCentsString.openapi({
      description: "Integer cents: positive adds to the ledger account's balance, negative takes from it",
    }),
    currency: z.literal('USD'),
    balanceTransactionId: z
      .string()
      .nullable()
      .openapi({
        example: 'txn_…',
        description:
          "The merchant's balance transaction this entry is part of (a merchant account's entry); null for the " +
          "operator's and external accounts', and for a settlement, which moves money between a merchant's own balances",
      }),
    createdAt: isoTimestamp,
  }),
).openapi('LedgerEntry');

const ledgerEntriesDocument = z
  .object({
    links: z.object({ self: z.string().url() }),
    data: z.array(ledgerEntryResourceSchema),
  })
  .openapi('LedgerEntries');

export const listPaymentLedgerEntriesRoute = createRoute({
  method: 'get',
  path: '/payments/{id}/ledger-entries',
  operationId: 'listPaymentLedgerEntries',
  tags: ['Payments'],
  summary:
    "The payment's ledger entries, in posting order: its own postings, its refund, void and split records', and " +
    "its disputes'",
  description:
    "Every entry, not a page: a payment's postings are few (a capture, a settlement, one per refund or dispute). " +
    "Each posting's entries sum to zero.",
  security: authenticated,
  request: { params: idParam('Payment id', 'pay_…') },
  responses: {
    200: jsonResponse('The entries, oldest first', ledgerEntriesDocument),
    ...authenticatedErrors(403, 404),
  },
});
