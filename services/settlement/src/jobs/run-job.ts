import type { Logger } from '@pps/shared/logger';
import { type JobName, type JobPayload, jobs, type QueueName } from '@pps/shared/queues';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { z } from 'zod';
import { type JobDeps, RunLater } from './job-handler';
import { handlers } from './registry';

/** The catalogue job by job: each payload schema typed by its own job, which a generic dispatch needs. */
const catalogue: { readonly [N in JobName]: { name: string; queue: QueueName; payload: z.ZodType<JobPayload<N>> } } =
  jobs;

const byName = new Map((Object.keys(catalogue) as JobName[]).map((key) => [catalogue[key].name, key]));

/** What a queue's worker hands every job it runs. */
type WorkerContext = { deps: JobDeps; log: Logger; signal: AbortSignal };

/**
 * BullMQ's processor for one queue's worker: finds the job in the catalogue, checks its payload and runs its
 * handler. A handler's `RunLater` puts the job back, delayed, without using up an attempt.
 */
export function jobProcessor(queue: QueueName, context: WorkerContext) {
  return async (job: Job, token?: string): Promise<void> => {
    const key = byName.get(job.name);
    // Permanent failures: retrying a job nobody handles, or whose payload is wrong, can never succeed.
    if (key === undefined || catalogue[key].queue !== queue) {
      throw new UnrecoverableError(`no handler for job ${job.name}`);
    }
    try {
      await run(key, job, context);
    } catch (error) {
      if (!(error instanceof RunLater)) throw error;
      await job.moveToDelayed(Date.now() + error.delayMs, token);
      throw new DelayedError();
    }
  };
}

async function run<N extends JobName>(key: N, job: Job, context: WorkerContext) {
  const payload = catalogue[key].payload.safeParse(job.data);
  if (!payload.success) throw new UnrecoverableError(`invalid payload for ${job.name}: ${payload.error.message}`);
  const handler = handlers[key];
  await handler({
    deps: context.deps,
    payload: payload.data,
    attempt: job.attemptsMade + 1,
    log: context.log.child({ job: job.name, jobId: job.id }),
    signal: context.signal,
  });
}
