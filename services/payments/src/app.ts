import { createServiceApp, type ServiceDeps } from '@pps/shared/http';
import { registerEventRoutes, registerWebhookRoutes } from '@pps/webhooks';
import { registerCheckoutRoutes } from './checkout/checkout.routes';
import { registerCustomerRoutes } from './customers/customers.routes';
import { registerDisputeRoutes } from './disputes/api/disputes.routes';
import { registerPaymentRoutes } from './payments/api/payments.routes';
import { paymentBatchers } from './payments/batchers';
import { registerPayoutRoutes } from './payouts/api/payouts.routes';
import type { Processor } from './processor/processor';
import { registerReportRoutes } from './reports/reports.routes';
import { SandboxProcessor } from './sandbox/sandbox-processor';
import { registerTokenRoutes } from './tokens/tokens.routes';

/**
 * The payments service: `/payments*`, `/disputes*`, `/payouts*`, `/reports*`, `/tokens*`, `/checkout*`, `/customers*`,
 * and the webhooks package's `/webhooks*`, `/events*`.
 */
export function createPaymentsApp(deps: ServiceDeps & { processor?: Processor }) {
  const app = createServiceApp(deps, 'payments');
  registerTokenRoutes(app, deps);
  registerCheckoutRoutes(app, deps);
  registerCustomerRoutes(app, deps);
  const processor = deps.processor ?? new SandboxProcessor({ latencyMs: deps.config.SANDBOX_LATENCY_MS, db: deps.db });
  registerPaymentRoutes(app, deps, paymentBatchers({ ...deps, processor }));
  registerDisputeRoutes(app, deps, processor);
  registerPayoutRoutes(app, deps);
  registerReportRoutes(app, deps);
  registerWebhookRoutes(app, deps);
  registerEventRoutes(app, deps);
  return app;
}
