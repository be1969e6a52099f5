import { moduleLogger } from '@pps/shared/logger';
import { jobs, keepWorking, queuePrefixOf, queues, redisClient, redisConnection } from '@pps/shared/queues';
import { Queue } from 'bullmq';
import { deliveryJobDeps } from './delivery/delivery-deps';
import { DirectDeliveries } from './delivery/direct-deliveries';
import type { WebhooksDeps } from './deps';
import { registerWebhookMetrics } from './metrics';
import { startDeliveryWorker, webhookJobOptions } from './queue-worker';
import { startOutboxRelay } from './relay/outbox-relay';

const RETENTION_EVERY_MS = 60 * 60 * 1000;

/**
 * Starts the event pipeline of one process (docs/design.md, Webhook delivery): the outbox relay (events fanned out
 * to delivery rows leased to this process), the first attempts made directly (WEBHOOK_CONCURRENCY at once) and the
 * delivery jobs' workers (as many again), which carry retries and whatever a first attempt could not do. Safe in
 * several processes: the relay claims with SKIP LOCKED, a delivery's job id is its own and a lease names one
 * process's work. Redis being down does not stop first attempts; what needs a job waits in PostgreSQL and the
 * relay enqueues it once Redis answers. `close` lets the deliveries in flight and those leased here finish.
 */
export async function startWebhooks(deps: WebhooksDeps) {
  const log = moduleLogger(deps.log, 'webhooks');
  if (deps.metrics) registerWebhookMetrics(deps.metrics, deps.db);
  const stopping = new AbortController();
  const connection = redisConnection(deps.config);
  // The relay enqueues on a connection that fails fast while Redis is down: its transaction must never wait on
  // Redis (the deliveries stay in PostgreSQL until the next round).
  const relayConnection = redisClient(deps.config, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  relayConnection.on('error', () => {});
  const webhooks = new Queue(queues.webhooks, {
    connection: relayConnection,
    prefix: queuePrefixOf(deps.config, queues.webhooks),
    defaultJobOptions: webhookJobOptions(deps.config),
  });
  webhooks.on('error', () => {});
  const jobDeps = deliveryJobDeps(deps);
  // Replaced when it takes no job while jobs wait for it as long as the stale sweep waits (after a Redis failover a
  // worker can stay blocked on the node that died): `keepWorking`.
  const staleMs = deps.config.WEBHOOK_STALE_SECONDS * 1000;
  const delivery = keepWorking(
    () => startDeliveryWorker({ deps: jobDeps, connection, log, signal: stopping.signal }),
    webhooks,
    {
      stuckAfterMs: staleMs,
      checkEveryMs: staleMs / 4,
      onReplaced: (waitedMs) => log.warn({ waitedMs }, 'the webhooks worker took no job while jobs waited; replaced'),
    },
  );
  // A retry recorded by a direct attempt wakes the relay, which enqueues its job.
  let relay: ReturnType<typeof startOutboxRelay> | undefined;
  const direct = new DirectDeliveries({ deps: jobDeps, queue: webhooks, log, onRetry: () => relay?.wake() });
  relay = startOutboxRelay({
    config: deps.config,
    db: deps.db,
    queue: webhooks,
    redis: relayConnection,
    log,
    direct,
    metrics: deps.metrics,
  });
  // Retention hourly, upserted at start and whenever Redis comes back (idempotent: every replica may do it).
  const upsertRetention = () =>
    webhooks
      .upsertJobScheduler(
        jobs.eventRetention.name,
        { every: RETENTION_EVERY_MS },
        { name: jobs.eventRetention.name, data: {}, opts: { attempts: 1 } },
      )
      .catch((error) => log.warn({ err: (error as Error).message }, 'retention scheduler not registered yet'));
  void upsertRetention();
  relayConnection.on('ready', () => void upsertRetention());

  return {
    queues: { webhooks },
    /** The delivery workers' connection: what the process's `/readyz` asks of Redis. */
    redis: connection,
    close: async () => {
      stopping.abort();
      await relay?.close();
      await direct.drain();
      await delivery.close();
      await webhooks.close();
      await jobDeps.agent.close();
      await Promise.all([connection.quit().catch(() => {}), relayConnection.quit().catch(() => {})]);
    },
  };
}
