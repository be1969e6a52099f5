import { createDataCipher, SandboxProcessor } from '@pps/payments';
import type { Config } from '@pps/shared/config';
import { moduleLogger } from '@pps/shared/logger';
import {
  defaultJobOptions,
  jobProcessor,
  jobs,
  keepWorking,
  type QueueName,
  queuePrefixOf,
  queues,
  redisClient,
  redisConnection,
} from '@pps/shared/queues';
import { Queue, Worker } from 'bullmq';
import type { SettlementDeps } from './deps';
import type { JobDeps, SettlementQueue } from './jobs/job-handler';
import { handlers } from './jobs/registry';

/** Recurring jobs, declared once; upserting a scheduler is idempotent, so every replica may do it. */
const schedules = (config: Config) => [
  { queue: queues.maintenance, job: jobs.idempotencyCleanup, every: 60 * 60 * 1000 },
  { queue: queues.maintenance, job: jobs.paymentRecovery, every: 60 * 1000 },
  { queue: queues.maintenance, job: jobs.requestLogRetention, every: 60 * 60 * 1000 },
  { queue: queues.maintenance, job: jobs.healthSample, every: 60 * 1000 },
  { queue: queues.settlement, job: jobs.clockTick, every: config.SETTLEMENT_INTERVAL_SECONDS * 1000 },
  { queue: queues.settlement, job: jobs.payoutRun, every: config.PAYOUT_INTERVAL_SECONDS * 1000 },
];

/**
 * Starts the settlement service's workers (the maintenance queue, the settlement queue with
 * SETTLEMENT_CONCURRENCY passes at once) and their job schedulers. Redis being down does not stop the process:
 * BullMQ reconnects, and the schedulers are upserted once it answers. `close` lets the jobs in flight finish. The
 * outbox relay and webhook delivery are the webhooks service's (`startWebhooks`).
 */
export async function startSettlement(deps: SettlementDeps, options: { concurrency?: number } = {}) {
  const log = moduleLogger(deps.log, 'settlement');
  const connection = redisConnection(deps.config);
  const queueOf = (name: QueueName) => {
    const queue = new Queue(name, { connection, prefix: queuePrefixOf(deps.config, name), defaultJobOptions });
    queue.on('error', (error) => log.warn({ queue: name, err: error.message }, 'queue error'));
    return queue;
  };
  const maintenance = queueOf(queues.maintenance);
  const settlement = queueOf(queues.settlement);
  // Only read (the health samples count its jobs): the webhooks service runs and fills it.
  const webhooks = queueOf(queues.webhooks);

  // Aborted on close: a pass finishes the batch in flight and stops before the next (the rest is due again).
  const stopping = new AbortController();
  const jobDeps: JobDeps = {
    config: deps.config,
    db: deps.db,
    processor: deps.processor ?? new SandboxProcessor({ latencyMs: deps.config.SANDBOX_LATENCY_MS, db: deps.db }),
    cipher: deps.cipher ?? createDataCipher(deps.config),
    metrics: deps.metrics,
    queues: [maintenance, settlement, webhooks],
  };
  // Each worker is replaced when it takes no job while one waits for it two ticks' time (at least 5 s): after a Redis
  // (Cluster) failover a worker can stay blocked on a connection that no longer answers (`keepWorking`). What waits
  // is read on a connection that fails fast, so a Redis outage skips the look rather than queueing it.
  const watchConnection = redisClient(deps.config, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  watchConnection.on('error', () => {});
  const stuckAfterMs = Math.max(5_000, 2 * deps.config.SETTLEMENT_INTERVAL_SECONDS * 1000);
  const workerOf = (name: SettlementQueue, concurrency: number) => {
    const make = () => {
      const process = jobProcessor(name, handlers, { deps: jobDeps, log, signal: stopping.signal });
      const worker = new Worker(name, process, { connection, prefix: queuePrefixOf(deps.config, name), concurrency });
      worker.on('error', (error) => log.warn({ queue: name, err: error.message }, 'worker error'));
      worker.on('failed', (job, error) =>
        log.error({ job: job?.name, jobId: job?.id, attempt: job?.attemptsMade, err: error.message }, 'job failed'),
      );
      return worker;
    };
    const watched = new Queue(name, { connection: watchConnection, prefix: queuePrefixOf(deps.config, name) });
    watched.on('error', () => {});
    const kept = keepWorking(make, watched, {
      stuckAfterMs,
      checkEveryMs: stuckAfterMs / 4,
      onReplaced: (waitedMs) => log.warn({ queue: name, waitedMs }, 'a worker took no job while jobs waited; replaced'),
    });
    return { close: () => kept.close().finally(() => watched.close()) };
  };
  const workers = [
    workerOf(queues.maintenance, 1),
    workerOf(queues.settlement, options.concurrency ?? deps.config.SETTLEMENT_CONCURRENCY),
  ];

  const byName = { [queues.maintenance]: maintenance, [queues.settlement]: settlement };
  // A job renamed (`formerNames`) keeps one scheduler: the one an older release left under the old name goes.
  const upsertSchedulers = () =>
    Promise.all(
      schedules(deps.config).flatMap(({ queue, job, every }) => [
        byName[queue].upsertJobScheduler(job.name, { every }, { name: job.name, data: {} }),
        ...('formerNames' in job ? job.formerNames.map((former) => byName[queue].removeJobScheduler(former)) : []),
      ]),
    ).catch((error) => log.warn({ err: (error as Error).message }, 'job schedulers not registered yet'));
  // Upserted at start and again whenever Redis comes back: a Redis that lost its data gets them back.
  void upsertSchedulers();
  connection.on('ready', () => void upsertSchedulers());

  return {
    queues: { maintenance, settlement },
    /** The queues' and workers' connection: what the process's `/readyz` asks of Redis. */
    redis: connection,
    close: async () => {
      stopping.abort();
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all([maintenance.close(), settlement.close(), webhooks.close()]);
      await Promise.all([connection.quit().catch(() => {}), watchConnection.quit().catch(() => {})]);
    },
  };
}
