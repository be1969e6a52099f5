import { isDatabaseUnavailable } from '@pps/shared/db';
import { type JobHandler, RunLater } from '@pps/shared/queues';
import type { DeliveryJobDeps } from '../deps';
import { attemptDelivery } from './delivery';
import { RetryLater } from './retry-later';

/** A delivery that met an unavailable database is tried again after this, plus up to as much jitter. */
const DATABASE_RETRY_MS = 1000;

/** How long a delivery waits for a slot of its endpoint before stepping aside (delayed, not failed). */
const SLOT_WAIT_MS = 100;

/**
 * One attempt of one webhook delivery (docs/design.md). No head-of-line blocking: at most
 * WEBHOOK_ENDPOINT_CONCURRENCY deliveries to one endpoint are in flight per process; a job for an endpoint whose
 * slots stay busy past a short wait steps aside (runs again a moment later), so a slow or dead receiver never holds
 * the slots other endpoints need, while a fast one keeps its deliveries flowing.
 */
export const webhookDelivery: JobHandler<DeliveryJobDeps, 'webhookDelivery'> = async ({ deps, payload }) => {
  const { deliveryId, endpointId } = payload;
  if (!(await deps.endpointSlots.acquire(endpointId, SLOT_WAIT_MS))) {
    throw new RunLater(500 + Math.floor(Math.random() * 500), 'endpoint slots busy');
  }
  try {
    const outcome = await attemptDelivery(deps, { deliveryId }).catch((error: unknown) => {
      if (!isDatabaseUnavailable(error)) throw error;
      // The database is away (a restart, a failover): try again in a moment, without using up one of the
      // delivery's attempts, so it goes out as soon as the database is back rather than failing for good.
      throw new RunLater(DATABASE_RETRY_MS + Math.floor(Math.random() * DATABASE_RETRY_MS), 'database unavailable');
    });
    if (outcome.kind === 'retry') throw new RetryLater(outcome.retryInMs, outcome.reason);
  } finally {
    deps.endpointSlots.release(endpointId);
  }
};
