import {
  createPayoutRouteFor,
  getPayoutReconciliationRoute,
  getPayoutRoute,
  IDEMPOTENCY_KEY_HEADER,
  listPayoutsRoute,
  payoutAmountBounds,
} from '@pps/shared/contract';
import { list, type ServiceApp, type ServiceDeps } from '@pps/shared/http';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { csvResponse, wantsCsv } from '../../reports/csv';
import { payoutResource } from '../run/payout-resource';
import { payoutDocument, reconciliationCsv, reconciliationDocument } from './payouts.presenter';
import { createPayout, getPayout, getPayoutReconciliation, listPayouts } from './payouts.usecases';

export function registerPayoutRoutes(app: ServiceApp, deps: ServiceDeps) {
  const base = deps.config.PUBLIC_BASE_URL;
  const createRoute = createPayoutRouteFor(payoutAmountBounds(deps.config.MAX_AMOUNT_CENTS));

  app.openapi(createRoute, async (c) => {
    const result = await createPayout({
      ctx: c.get('ctx'),
      input: c.req.valid('json').data,
      idempotencyKey: c.req.valid('header')[IDEMPOTENCY_KEY_HEADER],
      raw: ((await c.req.json()) as { data?: unknown }).data,
    });
    if (result.replayed) c.header('Idempotent-Replayed', 'true');
    // The body is the stored response: the payout document (201).
    return c.json(result.body, result.status as ContentfulStatusCode) as never;
  });

  app.openapi(listPayoutsRoute, async (c) => {
    const { rows, page } = await listPayouts({ ctx: c.get('ctx'), input: c.req.valid('query') });
    return c.json(list(c, base, rows.map(payoutResource), page), 200);
  });

  app.openapi(getPayoutRoute, async (c) => {
    const payout = await getPayout({ ctx: c.get('ctx'), input: c.req.valid('param') });
    return c.json(payoutDocument(base, payout), 200);
  });

  app.openapi(getPayoutReconciliationRoute, async (c) => {
    const resource = await getPayoutReconciliation({ ctx: c.get('ctx'), input: c.req.valid('param') });
    if (wantsCsv(c)) return csvResponse(c, reconciliationCsv(resource), `${resource.id}-reconciliation.csv`) as never;
    return c.json(reconciliationDocument(base, resource), 200);
  });
}
