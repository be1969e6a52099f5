import type { Db } from '@pps/shared/db';
import type { Queue } from 'bullmq';
import { readLag } from './lag';
import { deleteHealthSamplesBefore, insertHealthSample } from './samples.repository';

/** How long a sample is kept: the page charts one hour, and a second is left for a late reader. */
export const HEALTH_SAMPLE_RETENTION_MS = 2 * 60 * 60 * 1000;

/**
 * Keeps the roles' lag at `now` (each queue's counts and oldest job, the outbox's backlog) as one sample, and removes
 * the samples past HEALTH_SAMPLE_RETENTION_MS: settlement's `health-sample` job calls it every minute, which gives the
 * console's health page its last hour. Running it twice is harmless.
 */
export async function takeHealthSample({
  db,
  queues,
  now,
}: {
  db: Db;
  queues: Queue[];
  now: Date;
}): Promise<{ queues: number; removed: number }> {
  const lag = await readLag({ db, queues, now });
  await insertHealthSample(db, {
    takenAt: now,
    queues: lag.queues,
    outboxUnrelayed: lag.outbox.unrelayed,
    outboxLagSeconds: lag.outbox.lagSeconds,
  });
  const removed = await deleteHealthSamplesBefore(db, new Date(now.getTime() - HEALTH_SAMPLE_RETENTION_MS));
  return { queues: lag.queues.length, removed };
}
