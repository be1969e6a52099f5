import { jobs } from '@pps/shared/queues';
import type { Job, Queue } from 'bullmq';
import { bounded } from './lag';

/** A settlement pass or payout run that finished: when, how, and for whom (one account: its clock moved). */
export type Run = { finishedAt: Date; outcome: 'completed' | 'failed'; accountId: string | undefined };

/** The last settlement pass and payout run BullMQ kept as finished; `undefined` when none is among those looked at. */
export type LastRuns = { settlement: Run | undefined; payout: Run | undefined };

/**
 * How many of the newest finished jobs of each kind (completed, failed) are looked at. Both runs are scheduled every
 * minute by default, so the newest few hold both; a bound keeps the read the same at any history (BullMQ keeps up
 * to 1,000 completed jobs, `defaultJobOptions`).
 */
export const FINISHED_JOBS_LOOKED_AT = 25;

const runOf = (job: Job, outcome: Run['outcome']): Run | undefined =>
  job.finishedOn === undefined
    ? undefined
    : { finishedAt: new Date(job.finishedOn), outcome, accountId: (job.data as { accountId?: string }).accountId };

/** The run of the newest finished job named `name` among `finished`. */
function newest(finished: { job: Job; outcome: Run['outcome'] }[], name: string): Run | undefined {
  const runs = finished
    .filter(({ job }) => job.name === name)
    .map(({ job, outcome }) => runOf(job, outcome))
    .filter((run) => run !== undefined);
  return runs.sort((a, b) => b.finishedAt.getTime() - a.finishedAt.getTime())[0];
}

/**
 * The last settlement pass and payout run, read from the settlement queue's finished jobs (BullMQ keeps them for
 * the queue board): the newest FINISHED_JOBS_LOOKED_AT completed and failed ones. Undefined when Redis does not answer.
 */
export async function readLastRuns(settlement: Queue): Promise<LastRuns | undefined> {
  return bounded(async () => {
    const last = FINISHED_JOBS_LOOKED_AT - 1;
    const [completed, failed] = await Promise.all([
      settlement.getJobs(['completed'], 0, last, false),
      settlement.getJobs(['failed'], 0, last, false),
    ]);
    const finished = [
      ...completed.map((job) => ({ job, outcome: 'completed' as const })),
      ...failed.map((job) => ({ job, outcome: 'failed' as const })),
    ];
    return { settlement: newest(finished, jobs.clockTick.name), payout: newest(finished, jobs.payoutRun.name) };
  });
}
