import type { Config } from '@pps/shared/config';
import { type Logger, moduleLogger } from '@pps/shared/logger';
import { jobProcessor, queuePrefixOf, queues, type RedisClient } from '@pps/shared/queues';
import { Worker } from 'bullmq';
import type { DeliveryJobDeps } from './delivery/delivery-deps';
import { webhookDelivery } from './delivery/delivery-job';
import { RetryLater } from './delivery/retry-later';
import { eventRetention } from './retention/retention-job';

/** Jobs of the webhooks queue: retried by BullMQ with our delays; attempts are counted in the database. */
export const webhookJobOptions = (config: Config) => ({
  attempts: config.WEBHOOK_RETRY_SCHEDULE_SECONDS.length + 1,
  backoff: { type: 'webhook' },
  // Kept a day, so the relay re-adding a job id in that time is ignored.
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
});

/**
 * The webhooks queue's workers (WEBHOOK_CONCURRENCY at once): the catalogue's delivery job, whose handler keeps
 * WEBHOOK_ENDPOINT_CONCURRENCY deliveries to one endpoint in flight per process at most, and the hourly retention.
 */
export function startDeliveryWorker(input: {
  deps: DeliveryJobDeps;
  connection: RedisClient;
  log: Logger;
  signal: AbortSignal;
}) {
  const { config } = input.deps;
  const log = moduleLogger(input.log, 'webhook-delivery');
  const worker = new Worker(
    queues.webhooks,
    jobProcessor(queues.webhooks, { webhookDelivery, eventRetention }, { ...input, log }),
    {
      connection: input.connection,
      prefix: queuePrefixOf(config, queues.webhooks),
      concurrency: config.WEBHOOK_CONCURRENCY,
      // The lock is renewed while a delivery runs (up to WEBHOOK_TIMEOUT_MS); a dead worker's job is retried
      // once the lock lapses and the stalled check sees it.
      lockDuration: config.WEBHOOK_JOB_LOCK_MS,
      stalledInterval: config.WEBHOOK_JOB_LOCK_MS,
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
