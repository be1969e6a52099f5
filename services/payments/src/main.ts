import { systemClock } from '@pps/shared/clock';
import { createMetrics } from '@pps/shared/metrics';
import { bootstrap, closeServer, listenOn, onShutdown } from '@pps/shared/runtime';
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
const { server, port } = await listenOn(app.fetch, {
  port: config.PAYMENTS_PORT,
  variable: 'PAYMENTS_PORT',
  config,
  log,
});
log.info({ host: config.HOST, port }, 'payments listening');
onShutdown(log, [
  { name: 'http', close: () => closeServer(server, { log }) },
  { name: 'database', close: database.close },
]);
