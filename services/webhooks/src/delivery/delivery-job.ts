import { isDatabaseUnavailable } from '@pps/shared/db';
import { type JobHandler, RunLater } from '@pps/shared/queues';
import type { DeliveryJobDeps } from '../deps';
import { decideAttempt, disableGoneEndpoint, failWithoutSending, sendDelivery } from './delivery';
import { RetryLater } from './retry-later';

/** A delivery that met an unavailable database is tried again after this, plus up to as much jitter. */
const DATABASE_RETRY_MS = 1000;

/** How long a delivery waits for a slot of a fast endpoint before stepping aside (delayed, not failed). */
const SLOT_WAIT_MS = 100;

/**
 * One attempt of one webhook delivery (docs/design.md, Webhook delivery): loaded with the concurrent jobs'
 * deliveries in one statement, sent, and recorded with theirs in one statement. A delivery no longer pending is
 * skipped, so a job that runs twice does no harm. No head-of-line blocking: the endpoint's slot
 * (WEBHOOK_ENDPOINT_CONCURRENCY per process) is held for the request alone, and a job for an endpoint whose slots
 * stay busy past a short wait steps aside (runs again a moment later), so a slow or dead receiver never holds the
 * worker slots other endpoints need, while a fast one keeps its deliveries flowing.
 */
export const webhookDelivery: JobHandler<DeliveryJobDeps, 'webhookDelivery'> = async ({ deps, payload }) => {
  const { deliveryId, endpointId } = payload;
  const metrics = deps.metrics;
  const loaded = await deps.io.load(deliveryId).catch(databaseAway);
  if (loaded?.status !== 'pending') {
    metrics?.webhookDeliveries.inc({ outcome: 'skipped' });
    return;
  }
  if (!loaded.enabled || loaded.deletedAt) {
    await failWithoutSending(deps, deliveryId, loaded.deletedAt ? 'endpoint deleted' : 'endpoint disabled').catch(
      databaseAway,
    );
    metrics?.webhookDeliveries.inc({ outcome: 'failed' });
    return;
  }
  const slots = deps.endpointSlots;
  if (!(await slots.acquire(endpointId, slots.waitFor(endpointId, SLOT_WAIT_MS)))) {
    throw new RunLater(Math.round(slots.stepAsideMs(endpointId)), 'endpoint slots busy');
  }
  const sent = await sendDelivery(deps, loaded).catch((error: unknown) => {
    slots.release(endpointId);
    throw error;
  });
  slots.release(endpointId, sent.latencyMs);
  const { record, outcome, gone } = decideAttempt(deps.config, loaded, sent);
  await deps.io.record(record).catch(databaseAway);
  if (gone) await disableGoneEndpoint(deps, endpointId).catch(databaseAway);

  if (sent.requested) metrics?.webhookAttemptDuration.observe(sent.latencyMs / 1000);
  metrics?.webhookDeliveries.inc({ outcome: outcome.kind === 'retry' ? 'retried' : outcome.status });
  if (record.ok) metrics?.webhookLag.observe((Date.now() - loaded.eventCreatedAt.getTime()) / 1000);
  if (outcome.kind === 'retry') throw new RetryLater(outcome.retryInMs, outcome.reason);
};

/**
 * The database is away (a restart, a failover): try again in a moment, without using up one of the delivery's
 * attempts, so it goes out as soon as the database is back rather than failing for good.
 */
function databaseAway(error: unknown): never {
  if (!isDatabaseUnavailable(error)) throw error;
  throw new RunLater(DATABASE_RETRY_MS + Math.floor(Math.random() * DATABASE_RETRY_MS), 'database unavailable');
}
