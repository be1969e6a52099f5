import type { Config } from '@pps/shared/config';
import type { Db } from '@pps/shared/db';
import { OUTBOX_CHANNEL } from '@pps/shared/events';
import { type Logger, moduleLogger } from '@pps/shared/logger';
import type { Metrics } from '@pps/shared/metrics';
import type { RedisClient } from '@pps/shared/queues';
import type { Queue } from 'bullmq';
import { type DirectDeliveries, leaseMs } from '../delivery/direct-deliveries';
import {
  enqueueDeliveries,
  fanOut,
  reclaimLapsedLeases,
  redisWasEmptied,
  reopenInFlightDeliveries,
  requeueStale,
} from './fan-out';
import { wakeableLoop } from './wakeable-loop';

const BATCH = 500;
/** Lapsed leases are looked for at most this often (an indexed read of the few leased deliveries). */
const LEASE_SWEEP_EVERY_MS = 1_000;
/**
 * Rounds woken by notifications start at least this far apart: under load each then takes the events of the last
 * few tens of milliseconds in one transaction, instead of one round per event.
 */
const MIN_GAP_MS = 25;

/**
 * The outbox relay loop: woken by PostgreSQL NOTIFY on `pps_outbox` (sent when an event's transaction commits),
 * and every OUTBOX_POLL_INTERVAL_MS anyway, so a missed notification only delays; one that comes while a round runs
 * makes another round follow it. Each round fans new events out to deliveries leased to this process and hands
 * them to `direct`, which makes their first attempts (claiming no more while it is full); then, with Redis, it
 * enqueues the jobs of deliveries handed back (retries, reopened ones) and sweeps lapsed leases and stale jobs.
 * Safe in several processes (SKIP LOCKED claims). With Redis down, first attempts still go out; what needs a job
 * waits in PostgreSQL and a later round enqueues it. While the process's Redis client makes its first connection
 * (the first rounds of a start), a round leaves Redis alone and says so at debug level only: Redis is not down, and
 * the round that follows its connection does the rest.
 */
export function startOutboxRelay(deps: {
  config: Config;
  db: Db;
  queue: Queue;
  redis: RedisClient;
  log: Logger;
  direct: DirectDeliveries;
  metrics?: Metrics;
}) {
  const log = moduleLogger(deps.log, 'outbox-relay');
  const connecting = firstConnection(deps.redis);
  const staleAfterMs = deps.config.WEBHOOK_STALE_SECONDS * 1000;
  const relayDeps = { db: deps.db, queue: deps.queue, batchSize: BATCH, staleAfterMs };
  const lease = leaseMs(deps.config);
  let stopped = false;
  let lastSweep = 0;
  let lastLeaseSweep = 0;
  const loop = wakeableLoop({
    intervalMs: deps.config.OUTBOX_POLL_INTERVAL_MS,
    minGapMs: MIN_GAP_MS,
    onError: (error) => log.warn({ err: (error as Error).message }, 'outbox relay round failed; retrying'),
    round: async () => {
      while (!stopped) {
        await deps.direct.room();
        const { claimed, leased } = await fanOut(relayDeps, lease);
        deps.direct.add(leased);
        if (claimed < BATCH) break;
      }
      if (connecting()) {
        log.debug('redis is still connecting: enqueueing and sweeps wait for the next round');
        return;
      }
      if (await redisWasEmptied(deps.redis, deps.queue)) {
        const reopened = await reopenInFlightDeliveries(deps.db);
        if (reopened > 0) log.warn({ reopened }, 'redis lost its jobs; deliveries in flight enqueued again');
      }
      while (!stopped && (await enqueueDeliveries(relayDeps)) === BATCH) {}
      if (Date.now() - lastLeaseSweep > LEASE_SWEEP_EVERY_MS) {
        lastLeaseSweep = Date.now();
        const reclaimed = await reclaimLapsedLeases(relayDeps);
        if (reclaimed > 0) {
          log.warn({ reclaimed }, 'deliveries whose lease lapsed enqueued as jobs');
          deps.metrics?.webhookFirstAttempts.inc({ way: 'reclaimed' }, reclaimed);
        }
      }
      if (Date.now() - lastSweep > staleAfterMs / 4) {
        lastSweep = Date.now();
        const requeued = await requeueStale(relayDeps);
        if (requeued > 0) log.warn({ requeued }, 'stale webhook deliveries enqueued again');
      }
    },
  });
  // Once Redis is ready (at start, and after an outage), what waited for it goes at once, not at the next poll.
  deps.redis.on('ready', loop.wake);
  // Woken again whenever LISTEN is (re)established: what committed while nobody listened goes out at once.
  const listening = deps.db.$client
    .listen(OUTBOX_CHANNEL, loop.wake, loop.wake)
    .catch((error) => log.warn({ err: (error as Error).message }, 'LISTEN failed; polling only'));

  return {
    /** Runs a round soon (a retry recorded for the relay to enqueue). */
    wake: loop.wake,
    close: async () => {
      stopped = true;
      deps.redis.off('ready', loop.wake);
      await loop.close();
      const listener = await listening;
      await listener?.unlisten().catch(() => {});
    },
  };
}

/**
 * Whether `redis` is still on its first attempt to connect: not ready yet, and neither ready nor failed before. Once it
 * has been ready, or an attempt has failed, a round that meets Redis away is an outage, and fails as one.
 */
function firstConnection(redis: RedisClient): () => boolean {
  let first = redis.status !== 'ready';
  const settled = () => {
    first = false;
  };
  redis.once('ready', settled);
  redis.once('error', settled);
  return () => first && redis.status !== 'ready';
}
