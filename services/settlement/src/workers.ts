import type { Config } from '@pps/shared/config';
import type { Db } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import { jobs, queues } from '@pps/shared/queues';
import { Queue, Worker } from 'bullmq';
import { handlers } from './jobs';
import { redisConnection } from './redis';

export type SettlementDeps = { config: Config; db: Db; log: Logger };

/** Recurring jobs, declared once; upserting a scheduler is idempotent, so every replica may do it. */
const SCHEDULES = [{ job: jobs.idempotencyCleanup, every: 60 * 60 * 1000 }];

/**
 * Starts the settlement service's workers and job schedulers. Redis being down does not stop the
 * process: BullMQ reconnects, and the schedulers are upserted once it answers.
 */
export async function startSettlement(deps: SettlementDeps, options: { concurrency?: number } = {}) {
  const log = deps.log.child({ module: 'settlement' });
  const connection = redisConnection(deps.config.REDIS_URL);
  const prefix = deps.config.QUEUE_PREFIX;
  const maintenance = new Queue(queues.maintenance, { connection, prefix });
  maintenance.on('error', (error) => log.warn({ err: error.message }, 'maintenance queue error'));

  const worker = new Worker(
    queues.maintenance,
    async (job) => {
      const handler = handlers[job.name];
      if (!handler) throw new Error(`no handler for job ${job.name}`);
      await handler({
        deps,
        payload: job.data,
        attempt: job.attemptsMade + 1,
        log: log.child({ job: job.name, jobId: job.id }),
      });
    },
    { connection, prefix, concurrency: options.concurrency ?? 2 },
  );
  worker.on('error', (error) => log.warn({ err: error.message }, 'worker error'));
  worker.on('failed', (job, error) => log.error({ job: job?.name, jobId: job?.id, err: error.message }, 'job failed'));

  void Promise.all(
    SCHEDULES.map(({ job, every }) =>
      maintenance.upsertJobScheduler(
        job.name,
        { every },
        { name: job.name, data: {}, opts: { removeOnComplete: 100, removeOnFail: 500 } },
      ),
    ),
  ).catch((error) => log.warn({ err: (error as Error).message }, 'job schedulers not registered yet'));

  return {
    queues: { maintenance },
    close: async () => {
      await worker.close();
      await maintenance.close();
      await connection.quit().catch(() => {});
    },
  };
}
