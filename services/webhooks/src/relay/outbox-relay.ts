import type { Config } from '@pps/shared/config';
import type { Db } from '@pps/shared/db';
import { OUTBOX_CHANNEL } from '@pps/shared/events';
import type { Logger } from '@pps/shared/logger';
import type { Queue } from 'bullmq';
import type Redis from 'ioredis';
import { enqueueDeliveries, fanOut, redisWasEmptied, reopenInFlightDeliveries, requeueStale } from './relay';
import { wakeableLoop } from './wakeable-loop';

const BATCH = 500;
const SWEEP_EVERY_MS = 30_000;
/**
 * Rounds woken by notifications start at least this far apart: under load each then takes the events of the last
 * few tens of milliseconds in one transaction, instead of one round per event.
 */
const MIN_GAP_MS = 25;

/**
 * The outbox relay loop: woken by PostgreSQL NOTIFY on `pps_outbox` (sent when an event's transaction commits),
 * and every OUTBOX_POLL_INTERVAL_MS anyway, so a missed notification only delays; one that comes while a round runs
 * makes another round follow it. Each round fans new events out to deliveries, then enqueues the deliveries' jobs.
 * Safe in several processes (SKIP LOCKED claims); with Redis down the deliveries wait in PostgreSQL and the next
 * round enqueues them.
 */
export function startOutboxRelay(deps: { config: Config; db: Db; queue: Queue; redis: Redis; log: Logger }) {
  const log = deps.log.child({ module: 'outbox-relay' });
  const relayDeps = { db: deps.db, queue: deps.queue, batchSize: BATCH };
  let stopped = false;
  let lastSweep = 0;
  const loop = wakeableLoop({
    intervalMs: deps.config.OUTBOX_POLL_INTERVAL_MS,
    minGapMs: MIN_GAP_MS,
    onError: (error) => log.warn({ err: (error as Error).message }, 'outbox relay round failed; retrying'),
    round: async () => {
      while (!stopped && (await fanOut(relayDeps)) === BATCH) {}
      if (await redisWasEmptied(deps.redis, deps.queue)) {
        const reopened = await reopenInFlightDeliveries(deps.db);
        if (reopened > 0) log.warn({ reopened }, 'redis lost its jobs; deliveries in flight enqueued again');
      }
      while (!stopped && (await enqueueDeliveries(relayDeps)) === BATCH) {}
      if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
        lastSweep = Date.now();
        const requeued = await requeueStale(relayDeps);
        if (requeued > 0) log.warn({ requeued }, 'stale webhook deliveries enqueued again');
      }
    },
  });
  // Woken again whenever LISTEN is (re)established: what committed while nobody listened goes out at once.
  const listening = deps.db.$client
    .listen(OUTBOX_CHANNEL, loop.wake, loop.wake)
    .catch((error) => log.warn({ err: (error as Error).message }, 'LISTEN failed; polling only'));

  return {
    close: async () => {
      stopped = true;
      await loop.close();
      const listener = await listening;
      await listener?.unlisten().catch(() => {});
    },
  };
}
