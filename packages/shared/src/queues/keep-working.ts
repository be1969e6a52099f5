import type { Queue, Worker } from 'bullmq';

export type KeepWorkingOptions = {
  /** How long a job may wait (ready, or delayed and due) with no job running before the worker counts as stuck. */
  stuckAfterMs: number;
  /** How often to look. */
  checkEveryMs: number;
  /** Told when a stuck worker is replaced (a log line). */
  onReplaced: (waitedMs: number) => void;
};

/**
 * A queue's worker, replaced when it stops taking jobs. After a Redis failover a BullMQ worker can stay blocked on a
 * connection to the node that died while its queue works again for everyone else (taskforcesh/bullmq#3088, #648):
 * its jobs would wait forever. Every `checkEveryMs` this looks: a worker running no job, and seen doing nothing for
 * `stuckAfterMs`, while a job has waited for it that long, is closed without waiting (it may never answer) and a new
 * one is made. A busy worker (a job running) is never replaced, so a slow job is never taken from a live worker.
 * `queue` reads what waits: give it a connection that fails fast, so a Redis outage skips the look.
 */
export function keepWorking(make: () => Worker, queue: Queue, options: KeepWorkingOptions) {
  let running = 0;
  let lastSeen = Date.now();
  const seen = () => {
    lastSeen = Date.now();
  };
  // Only the current worker's events count: a replaced one may still report as it closes.
  const watched = (made: Worker) => {
    made.on('active', () => {
      if (made !== worker) return;
      running += 1;
      seen();
    });
    for (const done of ['completed', 'failed'] as const) {
      made.on(done, () => {
        if (made !== worker) return;
        running = Math.max(0, running - 1);
        seen();
      });
    }
    made.on('drained', () => {
      if (made === worker) seen();
    });
    return made;
  };
  let worker = watched(make());
  let looking = false;
  const timer = setInterval(() => {
    if (looking || running > 0 || Date.now() - lastSeen < options.stuckAfterMs) return;
    looking = true;
    void oldestWaitMs(queue)
      .then((waited) => {
        if (waited < options.stuckAfterMs || running > 0 || Date.now() - lastSeen < options.stuckAfterMs) return;
        const stuck = worker;
        running = 0;
        seen();
        worker = watched(make());
        void stuck.close(true).catch(() => {});
        options.onReplaced(waited);
      })
      .catch(() => {}) // Redis away: nothing to judge by; the next look tries again
      .finally(() => {
        looking = false;
      });
  }, options.checkEveryMs);
  timer.unref();
  return {
    /** The worker running now. */
    get worker() {
      return worker;
    },
    close: async () => {
      clearInterval(timer);
      await worker.close();
    },
  };
}

/**
 * How long the job that has waited longest has waited: the oldest ready one (since it was added), or the delayed one
 * due first (its due time is its score in the delayed set, in milliseconds times 0x1000: BullMQ's `getDelayedScore`);
 * a delayed job not due yet has not waited. The console's health page shows it as each queue's oldest job, so what
 * an operator reads is what replaces a stuck worker here.
 */
export async function oldestWaitMs(queue: Queue): Promise<number> {
  const [[ready], [delayed]] = await Promise.all([
    queue.getJobs(['wait', 'prioritized'], 0, 0, true),
    queue.getJobs(['delayed'], 0, 0, true),
  ]);
  const score = delayed?.id ? await (await queue.client).zscore(queue.keys.delayed as string, delayed.id) : null;
  const now = Date.now();
  const waits = [ready ? now - ready.timestamp : 0, score === null ? 0 : now - Math.floor(Number(score) / 0x1000)];
  return Math.max(0, ...waits);
}
