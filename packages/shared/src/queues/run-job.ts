import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { z } from 'zod';
import type { Logger } from '../logger';
import { type JobName, type JobPayload, jobs, type QueueName } from './catalogue';

/** The jobs of the queues `Q`. */
export type JobOf<Q extends QueueName> = { [N in JobName]: (typeof jobs)[N]['queue'] extends Q ? N : never }[JobName];

export type JobInput<D, N extends JobName> = {
  deps: D;
  /** Already checked against the job's zod schema in the catalogue. */
  payload: JobPayload<N>;
  attempt: number;
  log: Logger;
  /** Aborted when the process is stopping: long jobs end at their next safe point. */
  signal: AbortSignal;
};

/** A job's handler: a plain function, tested without BullMQ. */
export type JobHandler<D, N extends JobName> = (input: JobInput<D, N>) => Promise<void>;

/**
 * One handler per job of the queues `Q`, each typed by its job's payload: a job added to the catalogue on one of
 * them without a handler, or a handler whose payload is not its job's, fails to compile.
 */
export type JobHandlers<D, Q extends QueueName> = { readonly [N in JobOf<Q>]: JobHandler<D, N> };

/**
 * Thrown by a handler that cannot run now (a resource busy or away): the job runs again after `delayMs` without
 * using up one of its attempts.
 */
export class RunLater extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'RunLater';
  }
}

/** The catalogue job by job: each payload schema typed by its own job, which a generic dispatch needs. */
const catalogue: {
  readonly [N in JobName]: {
    name: string;
    formerNames?: readonly string[];
    queue: QueueName;
    payload: z.ZodType<JobPayload<N>>;
  };
} = jobs;
/** Each job by its name, and by the names it had before (a job of an older release may still wait in Redis). */
const byName = new Map(
  (Object.keys(catalogue) as JobName[]).flatMap((key) =>
    [catalogue[key].name, ...(catalogue[key].formerNames ?? [])].map((name) => [name, key] as const),
  ),
);

/** What a queue's worker hands every job it runs. */
export type WorkerContext<D> = { deps: D; log: Logger; signal: AbortSignal };

/**
 * BullMQ's processor for one queue's worker: finds the job in the catalogue, checks its payload and runs its
 * handler. A handler's `RunLater` puts the job back, delayed, without using up an attempt.
 */
export function jobProcessor<D, Q extends QueueName>(queue: Q, handlers: JobHandlers<D, Q>, context: WorkerContext<D>) {
  const handlerOf = handlers as unknown as { readonly [N in JobName]?: JobHandler<D, N> };
  return async (job: Job, token?: string): Promise<void> => {
    const key = byName.get(job.name);
    // Permanent failures: retrying a job nobody handles, or whose payload is wrong, can never succeed.
    if (key === undefined || catalogue[key].queue !== queue || !handlerOf[key]) {
      throw new UnrecoverableError(`no handler for job ${job.name}`);
    }
    try {
      await run(key, handlerOf[key], job, context);
    } catch (error) {
      if (!(error instanceof RunLater)) throw error;
      await job.moveToDelayed(Date.now() + error.delayMs, token);
      throw new DelayedError();
    }
  };
}

async function run<D, N extends JobName>(key: N, handler: JobHandler<D, N>, job: Job, context: WorkerContext<D>) {
  const payload = catalogue[key].payload.safeParse(job.data);
  if (!payload.success) throw new UnrecoverableError(`invalid payload for ${job.name}: ${payload.error.message}`);
  await handler({
    deps: context.deps,
    payload: payload.data,
    attempt: job.attemptsMade + 1,
    log: context.log.child({ job: job.name, jobId: job.id }),
    signal: context.signal,
  });
}
