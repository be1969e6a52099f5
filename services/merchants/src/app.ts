import { createServiceApp, type ServiceDeps } from '@pps/shared/http';

/** The merchants service: `/merchants*`. Nothing is started here; main.ts serves it. */
export function createMerchantsApp(deps: ServiceDeps) {
  const app = createServiceApp(deps, 'merchants');
  return app;
}
