import { isDatabaseUnavailable } from '@pps/shared/db';
import { catalogueJob, type JobHandler, RunLater } from '@pps/shared/queues';
import { decideAttempt, disableGoneEndpoint, failWithoutSending, sendDelivery } from './delivery';
import type { DeliveryJobDeps } from './delivery-deps';
import type { LoadedDelivery } from './delivery-io';
import { RetryLater } from './retry-later';

/** A delivery that met an unavailable database is tried again after this, plus up to as much jitter. */
const DATABASE_RETRY_MS = 1000;

/** How long a delivery waits for a slot of a fast endpoint before stepping aside (delayed, not failed). */
const SLOT_WAIT_MS = 100;

/**
 * What one attempt came to: nothing to do (no longer pending), done for good, recorded with a retry due in
 * `delayMs`, or not made because the endpoint's slots stayed busy (`slow`: the endpoint answers slowly, so the
 * attempt did not wait at all). A busy attempt that steps aside asks the slots for how long
 * (`EndpointSlots.stepAsideMs`) when it does: a first attempt that only waits in line again in its process is not
 * one of the endpoint's step-asides.
 */
export type AttemptResult =
  | { kind: 'skipped' | 'done' }
  | { kind: 'retry'; delayMs: number; reason: string }
  | { kind: 'busy'; slow: boolean };

/**
 * One attempt of one webhook delivery (docs/design.md, Webhook delivery), made by a delivery job or, for a first
 * attempt, directly by the relay's process (`direct`): loaded with the concurrent attempts' deliveries in one
 * statement (or already, by the relay's claim), sent, and recorded with theirs in one statement. A delivery no
 * longer pending is skipped, so an attempt made twice does no harm. No head-of-line blocking: the endpoint's slot
 * (WEBHOOK_ENDPOINT_CONCURRENCY per process, jobs and direct attempts together) is held for the request alone, and
 * an attempt whose endpoint's slots stay busy past a short wait steps aside (`busy`), so a slow or dead receiver
 * never holds the slots other endpoints need, while a fast one keeps its deliveries flowing. Database errors are
 * thrown.
 */
export async function attemptDelivery(
  deps: DeliveryJobDeps,
  delivery: { deliveryId: string; endpointId: string; loaded?: LoadedDelivery },
  direct: boolean,
): Promise<AttemptResult> {
  const { deliveryId, endpointId } = delivery;
  const metrics = deps.metrics;
  const slots = deps.endpointSlots;
  const waitMs = slots.waitFor(endpointId, SLOT_WAIT_MS);
  // A slow endpoint's backlog comes back here again and again while its slots are taken: it steps aside before
  // reading anything.
  if (waitMs === 0 && slots.full(endpointId)) return { kind: 'busy', slow: true };
  const loaded = delivery.loaded ?? (await deps.io.load(deliveryId));
  if (loaded?.status !== 'pending') {
    metrics?.webhookDeliveries.inc({ outcome: 'skipped' });
    return { kind: 'skipped' };
  }
  if (!loaded.enabled || loaded.deletedAt) {
    await failWithoutSending(deps, deliveryId, loaded.deletedAt ? 'endpoint deleted' : 'endpoint disabled');
    metrics?.webhookDeliveries.inc({ outcome: 'failed' });
    return { kind: 'done' };
  }
  if (!(await slots.acquire(endpointId, waitMs))) return { kind: 'busy', slow: waitMs === 0 };
  const sent = await sendDelivery(deps, loaded).catch((error: unknown) => {
    slots.release(endpointId);
    throw error;
  });
  slots.release(endpointId, sent.latencyMs);
  const { record, outcome, gone } = decideAttempt(deps.config, loaded, sent, direct);
  await deps.io.record(record);
  if (gone) await disableGoneEndpoint(deps, endpointId);

  if (sent.requested) metrics?.webhookAttemptDuration.observe(sent.latencyMs / 1000);
  metrics?.webhookDeliveries.inc({ outcome: outcome.kind === 'retry' ? 'retried' : outcome.status });
  if (record.ok) metrics?.webhookLag.observe((Date.now() - loaded.eventCreatedAt.getTime()) / 1000);
  return outcome.kind === 'retry'
    ? { kind: 'retry', delayMs: outcome.retryInMs, reason: outcome.reason }
    : { kind: 'done' };
}

/**
 * The delivery job: one attempt, BullMQ carrying what comes after it. A retry is the job's own (thrown as
 * `RetryLater`, BullMQ's backoff reading its delay); busy slots and an unavailable database run it again after a
 * delay (`RunLater`) without using up one of the delivery's attempts, so it goes out as soon as the database is
 * back rather than failing for good.
 */
export const webhookDelivery: JobHandler<DeliveryJobDeps, 'webhookDelivery'> = async ({ deps, payload }) => {
  const result = await attemptDelivery(deps, payload, false).catch((error: unknown) => {
    if (!isDatabaseUnavailable(error)) throw error;
    throw new RunLater(databaseRetryMs(), 'database unavailable');
  });
  if (result.kind === 'busy') {
    throw new RunLater(Math.round(deps.endpointSlots.stepAsideMs(payload.endpointId)), 'endpoint slots busy');
  }
  if (result.kind === 'retry') throw new RetryLater(result.delayMs, result.reason);
};

/** The wait after meeting an unavailable database: DATABASE_RETRY_MS, plus up to as much jitter. */
export const databaseRetryMs = () => DATABASE_RETRY_MS + Math.floor(Math.random() * DATABASE_RETRY_MS);

/**
 * The job id of a delivery: its id, then `<id>-r<n>` for the n-th redelivery (a new job for a reopened one; BullMQ
 * ids may not contain `:`).
 */
export const deliveryJobId = (delivery: { id: string; redeliveries: number }) =>
  delivery.redeliveries === 0 ? delivery.id : `${delivery.id}-r${delivery.redeliveries}`;

/** A delivery's job, delayed to its next attempt when it has one (a retry whose job Redis lost keeps its time). */
export const deliveryJob = (delivery: {
  id: string;
  endpointId: string;
  redeliveries: number;
  nextAttemptAt: Date | null;
}) =>
  catalogueJob(
    'webhookDelivery',
    { deliveryId: delivery.id, endpointId: delivery.endpointId },
    {
      jobId: deliveryJobId(delivery),
      delay: delivery.nextAttemptAt ? Math.max(0, delivery.nextAttemptAt.getTime() - Date.now()) : 0,
    },
  );
