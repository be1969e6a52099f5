import { systemClock } from '@pps/shared/clock';
import { createMetrics } from '@pps/shared/metrics';
import { bootstrap, closeServer, listenOn, onShutdown } from '@pps/shared/runtime';
import { createMerchantsApp } from './app';

/** Runs the merchants service alone, behind a gateway that signs each call (INTERNAL_SECRET). */
const { config, log, database } = await bootstrap('merchants');
// Its own registry and `GET /metrics` (standalone): what this process counts, scraped from this process.
const metrics = createMetrics({ defaultMetrics: true });
const app = createMerchantsApp({
  config,
  db: database.db,
  readDb: database.readDb,
  log,
  clock: systemClock,
  metrics,
  standalone: true,
});
const { server, port } = await listenOn(app.fetch, {
  port: config.MERCHANTS_PORT,
  variable: 'MERCHANTS_PORT',
  config,
  log,
});
log.info({ host: config.HOST, port }, 'merchants listening');
onShutdown(log, [
  { name: 'http', close: () => closeServer(server, { log }) },
  { name: 'database', close: database.close },
]);
