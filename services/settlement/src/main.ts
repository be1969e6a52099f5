import { createMetrics } from '@pps/shared/metrics';
import { bootstrap, onShutdown, serveWorkerMetrics } from '@pps/shared/runtime';
import { startSettlement } from './workers';

/** Runs the settlement workers alone; scale by process count (every job is idempotent). */
const { config, log, database } = await bootstrap('settlement');
const metrics = createMetrics({ defaultMetrics: true });
const settlement = await startSettlement({ config, db: database.db, log, metrics });
log.info('settlement workers started');
// Prometheus scrapes this process on SETTLEMENT_METRICS_PORT (9464): the passes and records it settled itself; its
// /readyz is there too.
const metricsServer = await serveWorkerMetrics({
  config,
  log,
  metrics,
  role: 'settlement',
  db: database.db,
  redis: settlement.redis,
});
onShutdown(log, [
  { name: 'workers', close: settlement.close },
  // After the workers: scrapes still answer while the batch in flight finishes.
  ...(metricsServer ? [{ name: 'metrics http', close: metricsServer.close }] : []),
  { name: 'database', close: database.close },
]);
