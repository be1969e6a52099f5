import type { Config } from '@pps/shared/config';
import type { FieldCipher } from '@pps/shared/crypto';
import { type Db, isDatabaseUnavailable } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import { jobs, queues } from '@pps/shared/queues';
import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import type Redis from 'ioredis';
import { attemptDelivery } from './delivery';
import { EndpointSlots } from './endpoint-slots';

/** A delivery that met an unavailable database is tried again after this, plus up to as much jitter. */
const DATABASE_RETRY_MS = 1000;

/** How long a delivery waits for a slot of its endpoint before stepping aside (delayed, not failed). */
const SLOT_WAIT_MS = 100;

/** A delivery to try again later: the delay is the schedule's (with jitter) or the receiver's Retry-After. */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'RetryLater';
  }
}

/** Jobs of the webhooks queue: retried by BullMQ with our delays; attempts are counted in the database. */
export const webhookJobOptions = (config: Config) => ({
  attempts: config.WEBHOOK_RETRY_SCHEDULE_SECONDS.length + 1,
  backoff: { type: 'webhook' },
  // Kept a day, so the relay re-adding a job id in that time is ignored.
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
});

/**
 * Webhook delivery workers (WEBHOOK_CONCURRENCY at once). No head-of-line blocking: at most
 * WEBHOOK_ENDPOINT_CONCURRENCY deliveries to one endpoint are in flight per process; a job for an endpoint whose
 * slots stay busy past a short wait steps aside (delayed a moment), so a slow or dead receiver never holds the
 * slots other endpoints need, while a fast one keeps its deliveries flowing.
 */
export function startDeliveryWorker(deps: {
  config: Config;
  db: Db;
  cipher: FieldCipher;
  connection: Redis;
  log: Logger;
}) {
  const log = deps.log.child({ module: 'webhook-delivery' });
  const slots = new EndpointSlots(deps.config.WEBHOOK_ENDPOINT_CONCURRENCY);
  const worker = new Worker(
    queues.webhooks,
    async (job: Job, token?: string) => {
      const parsed = jobs.webhookDelivery.payload.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`invalid payload for ${job.name}`);
      const { deliveryId, endpointId } = parsed.data;
      if (!(await slots.acquire(endpointId, SLOT_WAIT_MS))) {
        await job.moveToDelayed(Date.now() + 500 + Math.floor(Math.random() * 500), token);
        throw new DelayedError();
      }
      try {
        const outcome = await attemptDelivery(deps, { deliveryId }).catch(async (error: unknown) => {
          if (!isDatabaseUnavailable(error)) throw error;
          // The database is away (a restart, a failover): try again in a moment, without using up one of the
          // delivery's attempts, so it goes out as soon as the database is back rather than failing for good.
          await job.moveToDelayed(
            Date.now() + DATABASE_RETRY_MS + Math.floor(Math.random() * DATABASE_RETRY_MS),
            token,
          );
          throw new DelayedError();
        });
        if (outcome.kind === 'retry') throw new RetryLater(outcome.retryInMs, outcome.reason);
      } finally {
        slots.release(endpointId);
      }
    },
    {
      connection: deps.connection,
      prefix: deps.config.QUEUE_PREFIX,
      concurrency: deps.config.WEBHOOK_CONCURRENCY,
      // The lock is renewed while a delivery runs (up to WEBHOOK_TIMEOUT_MS); a dead worker's job is retried
      // once the lock lapses and the stalled check sees it.
      lockDuration: deps.config.WEBHOOK_JOB_LOCK_MS,
      stalledInterval: deps.config.WEBHOOK_JOB_LOCK_MS,
      maxStalledCount: 3,
      settings: {
        backoffStrategy: (_attempts: number, _type?: string, error?: Error) =>
          error instanceof RetryLater ? error.delayMs : 1000,
      },
    },
  );
  worker.on('error', (error) => log.warn({ err: error.message }, 'worker error'));
  return worker;
}
