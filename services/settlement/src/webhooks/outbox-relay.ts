import type { Config } from '@pps/shared/config';
import type { Db } from '@pps/shared/db';
import { OUTBOX_CHANNEL } from '@pps/shared/events';
import type { Logger } from '@pps/shared/logger';
import type { Queue } from 'bullmq';
import { enqueueDeliveries, fanOut, requeueStale } from './relay';

const BATCH = 500;
const SWEEP_EVERY_MS = 30_000;

/**
 * The outbox relay loop: woken by PostgreSQL NOTIFY on `pps_outbox` (sent when an event's transaction commits),
 * and every OUTBOX_POLL_INTERVAL_MS anyway, so a missed notification only delays. Each round fans new events
 * out to deliveries, then enqueues the deliveries' jobs. Safe in several processes (SKIP LOCKED claims); with
 * Redis down the deliveries wait in PostgreSQL and the next round enqueues them.
 */
export function startOutboxRelay(deps: { config: Config; db: Db; queue: Queue; log: Logger }) {
  const log = deps.log.child({ module: 'outbox-relay' });
  let stopped = false;
  let wake = () => {};
  const listening = deps.db.$client
    .listen(OUTBOX_CHANNEL, () => wake())
    .catch((error) => log.warn({ err: (error as Error).message }, 'LISTEN failed; polling only'));

  let lastSweep = 0;
  const round = async () => {
    const relayDeps = { db: deps.db, queue: deps.queue, batchSize: BATCH };
    while (!stopped && (await fanOut(relayDeps)) === BATCH) {}
    while (!stopped && (await enqueueDeliveries(relayDeps)) === BATCH) {}
    if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = Date.now();
      const requeued = await requeueStale(relayDeps);
      if (requeued > 0) log.warn({ requeued }, 'stale webhook deliveries enqueued again');
    }
  };

  const running = (async () => {
    while (!stopped) {
      try {
        await round();
      } catch (error) {
        log.warn({ err: (error as Error).message }, 'outbox relay round failed; retrying');
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deps.config.OUTBOX_POLL_INTERVAL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  return {
    close: async () => {
      stopped = true;
      wake();
      await running;
      const listener = await listening;
      await listener?.unlisten().catch(() => {});
    },
  };
}
