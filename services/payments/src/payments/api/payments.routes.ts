import {
  answerPaymentAuthenticationRoute,
  createPaymentRouteFor,
  getPaymentRoute,
  getPaymentStatusRoute,
  IDEMPOTENCY_KEY_HEADER,
  listPaymentLedgerEntriesRoute,
  listPaymentsRoute,
  paymentStatesRoute,
} from '@pps/shared/contract';
import { absoluteUrl, list, type ServiceApp, type ServiceDeps } from '@pps/shared/http';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { answerChallenge } from '../authenticate/answer-challenge.usecases';
import { ledgerEntriesDocument } from '../model/ledger-entries.presenter';
import { paymentDocument, paymentResource } from '../model/payments.presenter';
import {
  createPayment,
  getPayment,
  getPaymentStatus,
  listPaymentLedgerEntries,
  listPayments,
  type PaymentDeps,
  paymentStates,
} from './payments.usecases';

const outcomeOf = (status: number) => (status === 201 ? 'approved' : status === 402 ? 'declined' : 'refused');

/** `/payments*`: a new payment or an operation on one (`createPayment`, run by `engines`), and the reads. */
export function registerPaymentRoutes(app: ServiceApp, deps: ServiceDeps, engines: PaymentDeps) {
  const { config } = deps;
  const base = config.PUBLIC_BASE_URL;
  const createRoute = createPaymentRouteFor({ min: config.MIN_AMOUNT_CENTS, max: config.MAX_AMOUNT_CENTS });

  app.openapi(createRoute, async (c) => {
    const input = c.req.valid('json').data;
    const result = await createPayment({
      ctx: c.get('ctx'),
      input,
      idempotencyKey: c.req.valid('header')[IDEMPOTENCY_KEY_HEADER],
      raw: ((await c.req.json()) as { data?: unknown }).data,
      deps: engines,
    });
    if (result.replayed) c.header('Idempotent-Replayed', 'true');
    else deps.metrics?.payments.inc({ type: input.attributes.paymentType, outcome: outcomeOf(result.status) });
    // The body is the stored response: a payment document (201) or an error document (402, 422).
    return c.json(result.body, result.status as ContentfulStatusCode) as never;
  });

  app.openapi(answerPaymentAuthenticationRoute, async (c) => {
    const ctx = c.get('ctx');
    const { token, outcome } = c.req.valid('json').data.attributes;
    const payment = await answerChallenge({ ctx, input: { ...c.req.valid('param'), token, outcome }, deps: engines });
    return c.json(paymentDocument(base, paymentResource(payment, [], ctx.clock.now())), 200);
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

  // After /payments/status/{id}: /payments/status/ledger-entries is the status of no payment, never the entries of one.
  app.openapi(listPaymentLedgerEntriesRoute, async (c) => {
    const ledger = await listPaymentLedgerEntries({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(ledgerEntriesDocument(base, ledger.paymentId, ledger.entries, ledger.balanceTransactions), 200);
  });

  app.openapi(listPaymentsRoute, async (c) => {
    const { data, page } = await listPayments({ ctx: c.get('ctx'), input: c.req.valid('query') });
    return c.json(list(c, base, data, page), 200);
  });
}
