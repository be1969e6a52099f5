import {
  createPaymentRouteFor,
  getPaymentRoute,
  getPaymentStatusRoute,
  IDEMPOTENCY_KEY_HEADER,
  listPaymentsRoute,
  paymentStatesRoute,
} from '@pps/shared/contract';
import { Admission } from '@pps/shared/db';
import { absoluteUrl, list, type ServiceApp, type ServiceDeps } from '@pps/shared/http';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { claimsCommitter } from '../idempotency/claims';
import type { Processor } from '../processor/processor';
import { operationsCommitter } from '../refunds/operations';
import { createTokenCipher } from '../tokens/tokens.repository';
import { chargeReader } from './charge-card.usecase';
import { paymentDocument } from './payments.presenter';
import { paymentsInsertPart } from './payments.repository';
import { createPayment, getPayment, getPaymentStatus, listPayments, paymentStates } from './payments.usecases';
import { outcomeRecorder } from './record-payment';

const outcomeOf = (status: number) => (status === 201 ? 'approved' : status === 402 ? 'declined' : 'refused');

export function registerPaymentRoutes(app: ServiceApp, deps: ServiceDeps & { processor: Processor }) {
  const { config } = deps;
  const base = config.PUBLIC_BASE_URL;
  // A new payment's two commits are group-committed with concurrent payments' (docs/design.md, The payment write path).
  const groupCommit = {
    maxBatch: config.GROUP_COMMIT_MAX_BATCH,
    maxWaitMs: config.GROUP_COMMIT_WAIT_MS,
    maxInFlight: config.GROUP_COMMIT_MAX_IN_FLIGHT,
  };
  const cipher = createTokenCipher(config);
  const paymentDeps = {
    processor: deps.processor,
    cipher,
    admission: new Admission(config.PAYMENT_ADMISSION_LIMIT),
    reads: chargeReader(deps.db, cipher, groupCommit),
    claims: claimsCommitter(deps.db, paymentsInsertPart, {
      ...groupCommit,
      onBatch: (size) => deps.metrics?.groupCommitBatch.observe({ phase: 'claim' }, size),
    }),
    outcomes: outcomeRecorder(deps, {
      ...groupCommit,
      onBatch: (size) => deps.metrics?.groupCommitBatch.observe({ phase: 'outcome' }, size),
    }),
    // Captures, refunds, split refunds and second splits: one transaction for concurrent requests' operations.
    operations: operationsCommitter(deps.db, {
      ...groupCommit,
      onBatch: (size) => deps.metrics?.groupCommitBatch.observe({ phase: 'operation' }, size),
    }),
  };
  const createRoute = createPaymentRouteFor({ min: config.MIN_AMOUNT_CENTS, max: config.MAX_AMOUNT_CENTS });

  app.openapi(createRoute, async (c) => {
    const input = c.req.valid('json').data;
    const result = await createPayment({
      ctx: c.get('ctx'),
      input,
      idempotencyKey: c.req.valid('header')[IDEMPOTENCY_KEY_HEADER],
      raw: ((await c.req.json()) as { data?: unknown }).data,
      deps: paymentDeps,
    });
    if (result.replayed) c.header('Idempotent-Replayed', 'true');
    else deps.metrics?.payments.inc({ type: input.attributes.paymentType, outcome: outcomeOf(result.status) });
    // The body is the stored response: a payment document (201) or an error document (402, 422).
    return c.json(result.body, result.status as ContentfulStatusCode) as never;
  });

  // Before /payments/{id}, so "states" is never taken for an id.
  app.openapi(paymentStatesRoute, (c) =>
    c.json({ links: { self: absoluteUrl(base, '/payments/states') }, data: paymentStates() }, 200),
  );

  app.openapi(getPaymentStatusRoute, async (c) => {
    const document = await getPaymentStatus({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(document, 200);
  });

  app.openapi(getPaymentRoute, async (c) => {
    const resource = await getPayment({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(paymentDocument(base, resource), 200);
  });

  app.openapi(listPaymentsRoute, async (c) => {
    const { data, page } = await listPayments({ ctx: c.get('ctx'), input: c.req.valid('query') });
    return c.json(list(c, base, data, page), 200);
  });
}
