/** Above this typical answer time an endpoint counts as slow: its deliveries step aside at once. */
const SLOW_MS = 250;
/** The step-aside delay's bounds. */
const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 60_000;
/** How fast the count of an endpoint's recent step-asides forgets: it halves in this time. */
const ASIDE_HALF_LIFE_MS = 10_000;

/**
 * In-flight deliveries per endpoint in this process, and how long each endpoint takes to answer. `acquire` waits
 * up to `waitMs` for one of `limit` slots: a fast receiver frees slots within milliseconds, so its deliveries queue
 * briefly and go on. A slow or dead one keeps its slots: its deliveries wait for none (`waitFor`) and step aside for
 * a time that grows with its answer time (`stepAsideMs`), so its backlog neither holds worker slots nor comes back
 * through the queue faster than the endpoint can take it, and other endpoints' deliveries keep flowing.
 */
export class EndpointSlots {
  private readonly busy = new Map<string, number>();
  private readonly waiters = new Map<string, (() => void)[]>();
  /** A moving average of each endpoint's answer time, in ms (timeouts and errors included). */
  private readonly answerMs = new Map<string, number>();
  /** Since when each endpoint's slots have all been busy with no answer freeing one (before any answer is timed). */
  private readonly fullSince = new Map<string, number>();
  /** Each endpoint's recent step-asides: a count that halves every ASIDE_HALF_LIFE_MS, and when it was last counted. */
  private readonly asides = new Map<string, { count: number; at: number }>();

  constructor(private readonly limit: number) {}

  /** How long a delivery to the endpoint may wait for a slot: `waitMs`, or none for a slow endpoint. */
  waitFor(endpointId: string, waitMs: number): number {
    return this.typicalMs(endpointId) > SLOW_MS ? 0 : waitMs;
  }

  /** Whether the endpoint's slots are all taken: a delivery to a slow one then steps aside before reading anything. */
  full(endpointId: string): boolean {
    return (this.busy.get(endpointId) ?? 0) >= this.limit;
  }

  /**
   * How long a delivery that found no slot steps aside (counted as one more step-aside of its endpoint; asked only
   * when it does: a job run later, a first attempt handed to a job, never one waiting in line again): about four
   * answer times, or, when more have stepped aside lately than the endpoint takes in that time, as long as its
   * slots need to take them all (recent step-asides × answer time ÷ slots), so a slow endpoint's backlog comes back
   * about as fast as the endpoint takes it rather than every few answer times; jittered, within bounds. The backlog's
   * share uses the answer time the endpoint has shown, when it has answered: a stall of all its slots makes a fast
   * endpoint slow for now, not each of its waiting deliveries as long as the stall.
   */
  stepAsideMs(endpointId: string): number {
    const now = Date.now();
    const last = this.asides.get(endpointId);
    const count = (last ? last.count * 2 ** (-(now - last.at) / ASIDE_HALF_LIFE_MS) : 0) + 1;
    this.asides.set(endpointId, { count, at: now });
    if (this.asides.size > 10_000) this.asides.clear();
    const typical = this.typicalMs(endpointId);
    const answered = this.answerMs.get(endpointId) ?? typical;
    const base = Math.max(MIN_DELAY_MS, typical * 4, (count * answered) / this.limit);
    return Math.min(MAX_DELAY_MS, base * (1 + Math.random()));
  }

  /**
   * The endpoint's answer time as known: its average, or, while its slots have all been busy with no answer yet, how
   * long that has lasted (a receiver that hangs from its first request is slow before any request ends).
   */
  private typicalMs(endpointId: string): number {
    const full = this.fullSince.get(endpointId);
    return Math.max(this.answerMs.get(endpointId) ?? 0, full === undefined ? 0 : Date.now() - full);
  }

  async acquire(endpointId: string, waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    while ((this.busy.get(endpointId) ?? 0) >= this.limit) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        const queue = this.waiters.get(endpointId) ?? [];
        queue.push(() => {
          clearTimeout(timer);
          resolve();
        });
        this.waiters.set(endpointId, queue);
      });
    }
    const busy = (this.busy.get(endpointId) ?? 0) + 1;
    this.busy.set(endpointId, busy);
    if (busy >= this.limit && !this.fullSince.has(endpointId)) this.fullSince.set(endpointId, Date.now());
    return true;
  }

  /** Frees the slot; `tookMs`, the request's time, feeds the endpoint's answer time. */
  release(endpointId: string, tookMs?: number): void {
    if (tookMs !== undefined) {
      const before = this.answerMs.get(endpointId);
      this.answerMs.set(endpointId, before === undefined ? tookMs : before * 0.8 + tookMs * 0.2);
      // Bounded: endpoints no longer delivered to are forgotten, and start again as fast.
      if (this.answerMs.size > 10_000) this.answerMs.clear();
    }
    this.fullSince.delete(endpointId);
    const left = (this.busy.get(endpointId) ?? 1) - 1;
    if (left <= 0) this.busy.delete(endpointId);
    else this.busy.set(endpointId, left);
    const next = this.waiters.get(endpointId)?.shift();
    if (this.waiters.get(endpointId)?.length === 0) this.waiters.delete(endpointId);
    next?.();
  }
}
