import { systemClock } from '@pps/shared/clock';
import { bootstrap, closeServer, listen, onShutdown } from '@pps/shared/runtime';
import { createPaymentsApp } from './app';

/** Runs the payments service alone, behind a gateway that signs each call (INTERNAL_SECRET). */
const { config, log, database } = await bootstrap('payments');
const app = createPaymentsApp({ config, db: database.db, log, clock: systemClock });
const { server, port } = await listen(app.fetch, config.PAYMENTS_PORT, '0.0.0.0', config);
log.info({ port }, 'payments listening');
onShutdown(log, [
  { name: 'http', close: () => closeServer(server, { log }) },
  { name: 'database', close: database.close },
]);
