import { systemClock } from '@pps/shared/clock';
import { createMetrics } from '@pps/shared/metrics';
import { bootstrap, closeServer, listen, onShutdown } from '@pps/shared/runtime';
import { createPaymentsApp } from './app';

/** Runs the payments service alone, behind a gateway that signs each call (INTERNAL_SECRET). */
const { config, log, database } = await bootstrap('payments');
// Its own registry and `GET /metrics` (standalone): what this process counts, scraped from this process.
const metrics = createMetrics({ defaultMetrics: true });
const app = createPaymentsApp({
  config,
  db: database.db,
  readDb: database.readDb,
  log,
  clock: systemClock,
  metrics,
  standalone: true,
});
const { server, port } = await listen(app.fetch, config.PAYMENTS_PORT, config.HOST, config);
log.info({ host: config.HOST, port }, 'payments listening');
onShutdown(log, [
  { name: 'http', close: () => closeServer(server, { log }) },
  { name: 'database', close: database.close },
]);
