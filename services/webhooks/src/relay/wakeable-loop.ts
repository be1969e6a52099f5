/**
 * Runs `round` again and again: after each round it waits `intervalMs`, or less when woken. A wake that comes while
 * a round runs is kept, and the next round follows it: what woke it may have been committed after the round read,
 * and must not wait a whole interval. Rounds start at least `minGapMs` apart, so that under a stream of wakes each
 * round takes what the last few brought instead of one each; many wakes before a round make one round. A round that
 * throws is reported to `onError` and the loop goes on.
 */
export function wakeableLoop(options: {
  round: () => Promise<void>;
  intervalMs: number;
  minGapMs?: number;
  onError: (error: unknown) => void;
}) {
  const minGapMs = options.minGapMs ?? 0;
  let stopped = false;
  let woken = false;
  let lastStart = 0;
  let timer: NodeJS.Timeout | undefined;
  let resume: (() => void) | undefined;

  /** Ends the wait `ms` from now (at once when `ms` is 0 or less). */
  const resumeIn = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => resume?.(), Math.max(0, ms));
  };
  const wake = () => {
    if (woken) return;
    woken = true;
    if (resume) resumeIn(lastStart + minGapMs - Date.now());
  };

  const running = (async () => {
    while (!stopped) {
      woken = false;
      lastStart = Date.now();
      try {
        await options.round();
      } catch (error) {
        options.onError(error);
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        resume = resolve;
        resumeIn(woken ? lastStart + minGapMs - Date.now() : options.intervalMs);
      });
      resume = undefined;
    }
  })();

  return {
    wake,
    /** Stops after the round under way, if any. */
    close: async () => {
      stopped = true;
      clearTimeout(timer);
      resume?.();
      await running;
    },
  };
}
