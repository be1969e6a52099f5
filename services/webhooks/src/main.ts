import { createMetrics } from '@pps/shared/metrics';
import { bootstrap, onShutdown, serveWorkerMetrics } from '@pps/shared/runtime';
import { startWebhooks } from './workers';

/**
 * `node dist/webhooks.js`: the event pipeline alone, the outbox relay and the webhook delivery workers; scale by
 * process count (the relay claims with SKIP LOCKED, each delivery's job is its own).
 */
const { config, log, database } = await bootstrap('webhooks');
const metrics = createMetrics({ defaultMetrics: true });
const webhooks = await startWebhooks({ config, db: database.db, log, metrics });
log.info('webhook relay and delivery workers started');
const metricsServer = await serveWorkerMetrics({
  config,
  log,
  metrics,
  role: 'webhooks',
  db: database.db,
  redis: webhooks.redis,
});
onShutdown(log, [
  { name: 'workers', close: webhooks.close },
  ...(metricsServer ? [{ name: 'metrics http', close: metricsServer.close }] : []),
  { name: 'database', close: database.close },
]);
