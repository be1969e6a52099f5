import { bootstrap, onShutdown } from '@pps/shared/runtime';
import { startSettlement } from './workers';

/** Runs the settlement workers alone; scale by process count (every job is idempotent). */
const { config, log, database } = await bootstrap('settlement');
const settlement = await startSettlement({ config, db: database.db, log });
log.info('settlement workers started');
onShutdown(log, [
  { name: 'workers', close: settlement.close },
  { name: 'database', close: database.close },
]);
