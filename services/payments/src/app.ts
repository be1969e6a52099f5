import { createServiceApp, type ServiceDeps } from '@pps/shared/http';

/** The payments service: `/payments*`, `/tokens*`, `/customers*`, `/webhooks*`, `/events*`. */
export function createPaymentsApp(deps: ServiceDeps) {
  const app = createServiceApp(deps, 'payments');
  return app;
}
