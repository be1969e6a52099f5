export type WaitOptions<T> = {
  /** What is awaited, for the message when time runs out ("every payment settled"). */
  what: string;
  /** How long to keep checking (15 s unless given). */
  timeoutMs?: number;
  /** The pause between two checks (100 ms unless given). */
  intervalMs?: number;
  /** When the value is the one awaited (unless given: when it is truthy). */
  until?: (value: T) => boolean;
  /** A check that throws counts as "not yet" (a server not listening yet, a database restarting); else it fails. */
  retryOnError?: boolean;
  /** More for the message when time runs out (a process's output). */
  detail?: () => string;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The tests' one polling loop: calls `check` until its value is the one awaited and returns that value, or throws,
 * naming `what` with the last value (or error), once `timeoutMs` has passed. `check` runs at least once.
 */
export async function waitFor<T>(check: () => T | Promise<T>, options: WaitOptions<T>): Promise<T> {
  const { timeoutMs = 15_000, intervalMs = 100, until = Boolean } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: string;
    try {
      const value = await check();
      if (until(value)) return value;
      last = typeof value === 'boolean' ? '' : `; last value: ${JSON.stringify(value)?.slice(0, 500)}`;
    } catch (error) {
      if (!options.retryOnError) throw error;
      last = `; last error: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (Date.now() >= deadline) {
      const detail = options.detail ? `\n${options.detail()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}${last}${detail}`);
    }
    await sleep(intervalMs);
  }
}
