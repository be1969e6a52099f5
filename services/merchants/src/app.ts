import { createServiceApp, type ServiceDeps } from '@pps/shared/http';
import { registerAdminRoutes } from './admin/admin.routes';
import { registerBalanceRoutes } from './balances/balances.routes';
import { registerMerchantRoutes } from './merchants/api/merchants.routes';
import { createMerchantSecrets } from './merchants/model/merchants.secrets';

/** The merchants service: `/merchants*` (balances included) and ops' `/admin/merchants/*`. Nothing is started here; main.ts serves it. */
export function createMerchantsApp(deps: ServiceDeps) {
  const app = createServiceApp(deps, 'merchants');
  // One cipher per app: the key ring is read once, the first key encrypts, every key decrypts.
  const secrets = createMerchantSecrets(deps.config);
  registerMerchantRoutes(app, secrets);
  registerBalanceRoutes(app);
  registerAdminRoutes(app);
  return app;
}
