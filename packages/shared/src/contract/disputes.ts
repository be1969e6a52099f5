import { createRoute, z } from '@hono/zod-openapi';
import { listQuery } from '../http/pagination';
import { strictObject } from '../http/strict-body';
import { disputePhases, disputeReasons, disputeStatuses } from '../states/dispute-states';
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
import { isoDateParam } from './query-params';

/** Disputes (docs/api.md, Disputes): a cardholder's dispute of a card payment, its evidence and its outcome. */

/** The longest evidence text: a long letter, not a file (files are not taken). */
export const EVIDENCE_TEXT_MAX_LENGTH = 20_000;

// ── request ────────────────────────────────────────────────────────────────────
const evidenceText = (description: string) =>
  z
    .string()
    .max(EVIDENCE_TEXT_MAX_LENGTH, `must be at most ${EVIDENCE_TEXT_MAX_LENGTH} characters`)
    .optional()
    .openapi({ description });

export const disputeEvidenceSchema = strictObject({
  productDescription: evidenceText('What was sold'),
  customerName: evidenceText("The cardholder's name as the merchant knows it"),
  customerCommunication: evidenceText('What the cardholder and the merchant said to each other'),
  refundPolicy: evidenceText("The merchant's refund policy, as shown to the cardholder"),
  shippingTrackingNumber: evidenceText('The carrier tracking number of the delivery'),
  uncategorizedText: evidenceText(
    'Anything else; in the sandbox, `winning_evidence` or `losing_evidence` decides the outcome',
  ),
}).openapi('DisputeEvidence');

export const disputeEvidenceBodySchema = strictObject({
  data: strictObject({
    type: z.literal('disputes').openapi({ example: 'disputes' }),
    attributes: strictObject({
      evidence: disputeEvidenceSchema.optional(),
      submit: z.boolean().optional().openapi({
        description: 'true: send the evidence to the bank (the dispute goes under review); else it is only saved',
      }),
    }),
  }),
}).openapi('DisputeEvidenceRequest');
export type DisputeEvidenceBody = z.output<typeof disputeEvidenceBodySchema>;

// ── responses ──────────────────────────────────────────────────────────────────
export const disputeAttributesSchema = z.object({
  paymentId: z.string(),
  merchantId: z.string(),
  amount: centsString,
  currency: z.string().openapi({ example: 'USD' }),
  reason: z.enum(disputeReasons),
  networkReasonCode: z.string().openapi({ example: '10.4' }),
  phase: z.enum(disputePhases).openapi({
    description: 'inquiry: the bank asks first, no money moves; chargeback: the amount and the fee were taken back',
  }),
  status: z.enum(disputeStatuses),
  dueBy: isoTimestamp.openapi({ description: 'Evidence is taken until then; unanswered, the dispute is lost' }),
  evidence: disputeEvidenceSchema,
  evidenceDetails: z.object({
    submissionCount: z.number().int(),
    submittedAt: isoTimestamp.nullable(),
    pastDue: z.boolean().openapi({ description: 'dueBy has passed by the account clock' }),
  }),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
  closedAt: isoTimestamp.nullable(),
});

export const disputeResourceSchema = resourceSchema('disputes', disputeAttributesSchema).openapi('Dispute');

// ── routes ─────────────────────────────────────────────────────────────────────
const disputeId = idParam('Dispute id', 'dp_…');

export const listDisputesQuerySchema = listQuery(
  {
    merchantId: z
      .string()
      .optional()
      .openapi({ param: { name: 'merchantId', in: 'query' }, description: 'Only this merchant', example: 'mer_…' }),
    paymentId: z
      .string()
      .optional()
      .openapi({ param: { name: 'paymentId', in: 'query' }, description: 'Only this payment', example: 'pay_…' }),
    status: z.enum(disputeStatuses).optional(),
    startDate: isoDateParam('startDate').openapi({ description: 'Opened at or after (inclusive)' }),
    endDate: isoDateParam('endDate').openapi({ description: 'Opened before (exclusive)' }),
  },
  { merchant: 'the merchant filter is merchantId', payment: 'the payment filter is paymentId' },
);

export const listDisputesRoute = createRoute({
  method: 'get',
  path: '/disputes',
  operationId: 'listDisputes',
  tags: ['Disputes'],
  summary: "The account's disputes, one merchant's or one payment's, newest first",
  security: authenticated,
  request: { query: listDisputesQuerySchema },
  responses: {
    200: jsonResponse('A page of disputes', listDocument(disputeResourceSchema)),
    ...authenticatedErrors(400, 403),
  },
});

export const getDisputeRoute = createRoute({
  method: 'get',
  path: '/disputes/{id}',
  operationId: 'getDispute',
  tags: ['Disputes'],
  summary: 'Retrieve a dispute',
  security: authenticated,
  request: { params: disputeId },
  responses: {
    200: jsonResponse('The dispute', singleDocument(disputeResourceSchema)),
    ...authenticatedErrors(404),
  },
});

export const submitDisputeEvidenceRoute = createRoute({
  method: 'post',
  path: '/disputes/{id}/evidence',
  operationId: 'submitDisputeEvidence',
  tags: ['Disputes'],
  summary: 'Save evidence for a dispute, and with submit: true send it to the bank',
  description:
    'Only while the dispute needs a response and before dueBy (else 422 dispute_not_open). Each field given ' +
    'replaces the one saved; fields not given are kept. submit: true moves the dispute to under_review.',
  security: authenticated,
  request: { params: disputeId, body: jsonBody(disputeEvidenceBodySchema) },
  responses: {
    200: jsonResponse('The dispute', singleDocument(disputeResourceSchema)),
    ...authenticatedBodyErrors(404, 422),
  },
});

export const acceptDisputeRoute = createRoute({
  method: 'post',
  path: '/disputes/{id}/accept',
  operationId: 'acceptDispute',
  tags: ['Disputes'],
  summary: 'Accept a dispute: it is lost, and the money it took back stays with the cardholder',
  security: authenticated,
  request: { params: disputeId },
  responses: {
    200: jsonResponse('The dispute', singleDocument(disputeResourceSchema)),
    ...authenticatedErrors(404, 422),
  },
});

export const disputesRoutes = [listDisputesRoute, getDisputeRoute, submitDisputeEvidenceRoute, acceptDisputeRoute];
