import type { JobsOptions, Queue } from 'bullmq';
import { type JobName, type JobPayload, jobs } from './catalogue';

/** Finished jobs kept for bull-board, failed ones longer; retries back off exponentially. */
export const defaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { count: 1000, age: 24 * 3600 },
  removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
} as const;

/**
 * A job of the catalogue as BullMQ adds it (`add` or `addBulk`): its name, and its payload checked against the
 * catalogue's schema, so nothing enqueues a payload its handler would refuse.
 */
export function catalogueJob<N extends JobName>(job: N, payload: JobPayload<N>, opts?: JobsOptions) {
  const data: unknown = jobs[job].payload.parse(payload);
  return { name: jobs[job].name, data, ...(opts ? { opts } : {}) };
}

/** Adds one job of the catalogue to its queue. */
export function enqueue<N extends JobName>(queue: Queue, job: N, payload: JobPayload<N>, opts?: JobsOptions) {
  const { name, data } = catalogueJob(job, payload);
  return queue.add(name, data, opts);
}
