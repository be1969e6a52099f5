import { systemClock } from '@pps/shared/clock';
import { bootstrap, closeServer, listen, onShutdown } from '@pps/shared/runtime';
import { createMerchantsApp } from './app';

/** Runs the merchants service alone, behind a gateway that signs each call (INTERNAL_SECRET). */
const { config, log, database } = await bootstrap('merchants');
const app = createMerchantsApp({ config, db: database.db, log, clock: systemClock });
const { server, port } = await listen(app.fetch, config.MERCHANTS_PORT, '0.0.0.0', config);
log.info({ port }, 'merchants listening');
onShutdown(log, [
  { name: 'http', close: () => closeServer(server, { log }) },
  { name: 'database', close: database.close },
]);
