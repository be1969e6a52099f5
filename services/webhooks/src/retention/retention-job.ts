import type { JobHandler } from '@pps/shared/queues';
import type { DeliveryJobDeps } from '../delivery/delivery-deps';
import { removeExpiredEvents } from './retention';

const DAY_MS = 86_400_000;
const BATCH = 1000;

/**
 * Removes the events older than EVENT_RETENTION_DAYS (real time, not a sandbox clock) with their deliveries and
 * attempts, a batch per short transaction, stopping at the next batch when the process stops (the next run goes on).
 */
export const eventRetention: JobHandler<DeliveryJobDeps, 'eventRetention'> = async ({ deps, log, signal }) => {
  const before = new Date(Date.now() - deps.config.EVENT_RETENTION_DAYS * DAY_MS);
  const removed = await removeExpiredEvents(deps.db, { before, batchSize: BATCH, signal });
  if (removed.events > 0) log.info({ before, ...removed }, 'events past their retention removed');
};
