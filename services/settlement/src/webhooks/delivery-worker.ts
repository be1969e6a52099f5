import type { Config } from '@pps/shared/config';
import type { FieldCipher } from '@pps/shared/crypto';
import type { Db } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import { jobs, queues } from '@pps/shared/queues';
import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import type Redis from 'ioredis';
import { attemptDelivery, endpointOf } from './delivery';

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
 * WEBHOOK_ENDPOINT_CONCURRENCY deliveries to one endpoint are in flight per process; a job for a busy endpoint
 * steps aside (delayed a moment) so a slow or dead receiver never holds the slots other endpoints need.
 */
export function startDeliveryWorker(deps: {
  config: Config;
  db: Db;
  cipher: FieldCipher;
  connection: Redis;
  log: Logger;
}) {
  const log = deps.log.child({ module: 'webhook-delivery' });
  const inFlight = new Map<string, number>();
  const worker = new Worker(
    queues.webhooks,
    async (job: Job, token?: string) => {
      const parsed = jobs.webhookDelivery.payload.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`invalid payload for ${job.name}`);
      const { deliveryId } = parsed.data;
      const endpointId = await endpointOf(deps.db, deliveryId);
      if (!endpointId) return;
      const busy = inFlight.get(endpointId) ?? 0;
      if (busy >= deps.config.WEBHOOK_ENDPOINT_CONCURRENCY) {
        await job.moveToDelayed(Date.now() + 200 + Math.floor(Math.random() * 300), token);
        throw new DelayedError();
      }
      inFlight.set(endpointId, busy + 1);
      try {
        const outcome = await attemptDelivery(deps, { deliveryId });
        if (outcome.kind === 'retry') throw new RetryLater(outcome.retryInMs, outcome.reason);
      } finally {
        const left = (inFlight.get(endpointId) ?? 1) - 1;
        if (left === 0) inFlight.delete(endpointId);
        else inFlight.set(endpointId, left);
      }
    },
    {
      connection: deps.connection,
      prefix: deps.config.QUEUE_PREFIX,
      concurrency: deps.config.WEBHOOK_CONCURRENCY,
      settings: {
        backoffStrategy: (_attempts: number, _type?: string, error?: Error) =>
          error instanceof RetryLater ? error.delayMs : 1000,
      },
    },
  );
  worker.on('error', (error) => log.warn({ err: error.message }, 'worker error'));
  return worker;
}
