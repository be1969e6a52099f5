import autocannon from 'autocannon';

/** An answer the load generator got: when its request was sent (ms after the load began), how long it took, status. */
export type Sample = { sentMs: number; latencyMs: number; status: number };

/**
 * How long a load runs before its window opens (BENCH_SETTLE_SECONDS, default 3). Node accepts one connection per
 * turn of its event loop, so a busy server takes a while to accept a load's connections, and the first request of
 * each waits for that meanwhile (docs/decisions.md, "A busy process accepts one connection per turn…").
 */
export const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 3);

/** How long a load runs on after its window closes, so that what was sent in it is answered before the load stops. */
const TAIL_SECONDS = 2;

/** What a window measured: the answers to requests sent in it, its length, and the load's whole run. */
export type Windowed<T> = {
  inWindow: Sample[];
  seconds: number;
  /** When the window closed, in ms after the load began. */
  closesMs: number;
  /** What `span` gave when the window closed. */
  span: T;
  /** Every answer of the run, the settling included. */
  all: Sample[];
  /** autocannon's own figures, for the whole run (its errors and timeouts are read from here). */
  result: autocannon.Result;
};

/**
 * An autocannon load measured in a window of `seconds` that opens SETTLE_SECONDS after the load began, once its
 * connections are in. `span` is called as the window opens (to sample CPU, or start a load beside it) and the
 * function it returns as the window closes. A load of a number of requests (`amount`) that ends sooner closes the
 * window when it ends.
 */
export async function windowedLoad<T>(
  options: autocannon.Options,
  seconds: number,
  span: () => Promise<() => Promise<T>>,
): Promise<Windowed<T>> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const all: Sample[] = [];
  let ended = false;
  const run = new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      options.amount ? options : { ...options, duration: SETTLE_SECONDS + seconds + TAIL_SECONDS },
      (error, result) => {
        ended = true;
        if (error) reject(error);
        else resolve(result);
      },
    );
    instance.on('response', (_client, status, _bytes, latencyMs) => {
      all.push({ sentMs: elapsed() - latencyMs, latencyMs, status });
    });
  });
  await until(SETTLE_SECONDS * 1000, run);
  if (ended) throw new Error(`the load ended within its ${SETTLE_SECONDS} s of settling: no window to measure`);
  const opensMs = elapsed();
  const close = await span();
  await until(opensMs + seconds * 1000 - elapsed(), run);
  const closesMs = elapsed();
  const measured = await close();
  const result = await run;
  const inWindow = all.filter((sample) => sample.sentMs >= opensMs && sample.sentMs < closesMs);
  return { inWindow, seconds: (closesMs - opensMs) / 1000, closesMs, span: measured, all, result };
}

/**
 * Requests per second counted from the load's first request to the window's close: the connections' way in (the
 * settling the window leaves out) included.
 */
export function fromFirstRequest(windowed: Windowed<unknown>): number {
  const answered = windowed.all.filter((sample) => sample.sentMs < windowed.closesMs).length;
  return Math.round(answered / (windowed.closesMs / 1000));
}

/** A window's requests per second, p50 and p99, and errors (answers other than 2xx in it, and the run's failures). */
export function figuresOf(windowed: Windowed<unknown>) {
  const { inWindow, result } = windowed;
  return {
    requestsPerSecond: Math.round(inWindow.length / windowed.seconds),
    p50Ms: percentile(inWindow, 0.5),
    p99Ms: percentile(inWindow, 0.99),
    errors: inWindow.filter((sample) => sample.status >= 300).length + result.errors + result.timeouts,
  };
}

/** The `fraction` percentile of the samples' latencies (0.99: p99), in whole milliseconds. */
export function percentile(samples: Sample[], fraction: number): number {
  const sorted = samples.map((sample) => sample.latencyMs).sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0);
}

/** Waits `ms`, or until `run` settles if it does first. */
async function until(ms: number, run: Promise<unknown>) {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, ms)))), run]);
  clearTimeout(timer);
}
