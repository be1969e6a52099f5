import type { Db, schema } from '@pps/shared/db';
import { oldestWaitMs } from '@pps/shared/queues';
import type { Queue } from 'bullmq';
import { readOutboxBacklog } from './samples.repository';

/** The longest a figure read from Redis is waited for: with Redis away the page (or the sample) goes on without it. */
export const REDIS_READ_TIMEOUT_MS = 500;

/** The outbox relay's lag: the events it has still to fan out, and how long the oldest has waited (0: none waits). */
export type OutboxLag = { unrelayed: number; lagSeconds: number };

/** The roles' lag at one instant: each queue Redis answered for, and the outbox's backlog. */
export type Lag = { queues: schema.QueueSample[]; outbox: OutboxLag };

/** `work`'s answer, or `undefined` when it fails or has not answered within `ms`. */
export async function bounded<T>(work: () => Promise<T>, ms = REDIS_READ_TIMEOUT_MS): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  const answer = Promise.resolve()
    .then(work)
    .catch(() => undefined);
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/**
 * One queue's counts as BullMQ keeps them in Redis and how long its longest-waiting job has waited (`oldestWaitMs`,
 * what replaces a stuck worker); undefined when Redis does not answer in time.
 */
export async function readQueueFigures(queue: Queue): Promise<schema.QueueSample | undefined> {
  return bounded(async () => {
    const [counts, waitedMs] = await Promise.all([
      queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed'),
      oldestWaitMs(queue),
    ]);
    const waiting = (counts.waiting ?? 0) + (counts.prioritized ?? 0);
    return {
      queue: queue.name,
      depth: waiting + (counts.delayed ?? 0),
      waiting,
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
      oldestWaitSeconds: Math.round(waitedMs / 1000),
    };
  });
}

/** The outbox's backlog at `now`, as PostgreSQL has it. */
export async function readOutboxLag(db: Db, now: Date): Promise<OutboxLag> {
  const { unrelayed, oldestAt } = await readOutboxBacklog(db);
  const lagMs = oldestAt ? Math.max(0, now.getTime() - oldestAt.getTime()) : 0;
  return { unrelayed, lagSeconds: Math.round(lagMs / 1000) };
}

/** Every queue's figures (those Redis answered for) and the outbox's, read at once. */
export async function readLag({ db, queues, now }: { db: Db; queues: Queue[]; now: Date }): Promise<Lag> {
  const [figures, outbox] = await Promise.all([Promise.all(queues.map(readQueueFigures)), readOutboxLag(db, now)]);
  return { queues: figures.filter((figure) => figure !== undefined), outbox };
}
