import { webhooksRoutes } from '@pps/shared/contract';
import { createServiceApp, registerNotImplemented, type ServiceDeps } from '@pps/shared/http';
import { registerCustomerRoutes } from './customers/customers.routes';
import { registerPaymentRoutes } from './payments/payments.routes';
import { type Processor, SandboxProcessor } from './sandbox/processor';
import { registerTokenRoutes } from './tokens/tokens.routes';

/** The payments service: `/payments*`, `/tokens*`, `/customers*`, `/webhooks*`, `/events*`. */
export function createPaymentsApp(deps: ServiceDeps & { processor?: Processor }) {
  const app = createServiceApp(deps, 'payments');
  registerTokenRoutes(app, deps);
  registerCustomerRoutes(app, deps);
  registerPaymentRoutes(app, { ...deps, processor: deps.processor ?? new SandboxProcessor() });
  // Webhook endpoints and events are declared in the contract; they answer 501 until built.
  registerNotImplemented(app, webhooksRoutes);
  return app;
}
