import { isDatabaseUnavailable } from './client';

export type BatcherOptions = {
  /** A batch goes as soon as it holds this many items. */
  maxBatch: number;
  /**
   * How long (ms) a batch with room waits for items known to be on their way (`expecting`: requests being checked,
   * or at the processor), when a batch could go; 0, or none on its way: until the end of the current turn of the
   * event loop (what arrived together goes together). Items that arrive while every batch slot is busy gather
   * without a timer, and go the moment a batch ends.
   */
  maxWaitMs: number;
  /** Batches running at once (each on one pooled connection). */
  maxInFlight: number;
  /** Told each batch's size as it goes (a metric). */
  onBatch?: (size: number) => void;
};

type Waiting<I, O> = { item: I; resolve: (value: O) => void; reject: (error: unknown) => void };

/**
 * Group commit, and group reads (docs/design.md, The payment write path): items submitted by concurrent requests
 * are handled by one `run` over the batch (for writes one transaction and one statement per table for all of them),
 * so the cost of a commit, of each statement's parse, plan and execution and of each round trip is shared. Batches
 * form by arrival: a batch goes when it is full, when every item known to be on its way has come (`expecting`), after
 * `maxWaitMs` if some have not, or when a batch ends and items have gathered meanwhile. So a lone request never
 * waits, and under load a batch takes the requests a turn or two behind it instead of going half empty.
 *
 * `run` returns each item's value in order, once the batch's work is done (for writes, once its transaction has
 * committed: a caller's promise resolves only after its own rows are committed). When the batch fails for a reason
 * other than the database being away, its items go again one by one, so an item whose write is refused (a
 * constraint) fails alone and never its neighbours; when the database is away, every item of the batch gets the
 * error (nothing of it committed, or its caller cannot know: the callers' own retries are conditional,
 * docs/design.md).
 */
export class Batcher<I, O> {
  readonly #run: (items: I[]) => Promise<O[]>;
  readonly #options: BatcherOptions;
  #waiting: Waiting<I, O>[] = [];
  #inFlight = 0;
  /** Items on their way: `expecting` calls running. */
  #coming = 0;
  #timer: { cancel: () => void; waiting: boolean } | undefined;

  constructor(run: (items: I[]) => Promise<O[]>, options: BatcherOptions) {
    if (options.maxBatch < 1 || options.maxInFlight < 1) throw new Error('batcher: maxBatch and maxInFlight ≥ 1');
    this.#run = run;
    this.#options = options;
  }

  /** Hands `item` to the next batch; resolves with its value once that batch is done (for writes: committed). */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  /**
   * Runs `fn`, which ends by submitting an item here (a request's checks before its claim, its processor call before
   * its outcome): while it runs, a batch with room waits for that item, up to `maxWaitMs`.
   */
  async expecting<T>(fn: () => Promise<T>): Promise<T> {
    this.#coming += 1;
    try {
      return await fn();
    } finally {
      this.#coming -= 1;
      // Its item, if any, is submitted in this turn; if none comes, what waits for it goes at the turn's end.
      this.#schedule();
    }
  }

  /** Batches running now, items waiting for one, and items on their way (for metrics and tests). */
  get load() {
    return { inFlight: this.#inFlight, waiting: this.#waiting.length, coming: this.#coming };
  }

  #schedule() {
    if (this.#inFlight >= this.#options.maxInFlight || this.#waiting.length === 0) return; // a batch's end sends
    if (this.#waiting.length >= this.#options.maxBatch) {
      this.#flush();
      return;
    }
    const wait = this.#options.maxWaitMs > 0 && this.#coming > 0;
    if (this.#timer) {
      if (wait || !this.#timer.waiting) return;
      this.#timer.cancel(); // what it waited for has come
    }
    const flush = () => {
      this.#timer = undefined;
      this.#flush();
    };
    if (wait) {
      const timer = setTimeout(flush, this.#options.maxWaitMs);
      this.#timer = { cancel: () => clearTimeout(timer), waiting: true };
    } else {
      const immediate = setImmediate(flush);
      this.#timer = { cancel: () => clearImmediate(immediate), waiting: false };
    }
  }

  #flush() {
    this.#timer?.cancel();
    this.#timer = undefined;
    while (this.#waiting.length > 0 && this.#inFlight < this.#options.maxInFlight) {
      const batch = this.#waiting.splice(0, this.#options.maxBatch);
      this.#options.onBatch?.(batch.length);
      this.#inFlight += 1;
      void this.#runBatch(batch).finally(() => {
        this.#inFlight -= 1;
        if (this.#waiting.length > 0) this.#flush();
      });
    }
  }

  async #runBatch(batch: Waiting<I, O>[]) {
    try {
      const values = await this.#run(batch.map((waiting) => waiting.item));
      for (const [index, waiting] of batch.entries()) waiting.resolve(values[index] as O);
    } catch (error) {
      if (batch.length === 1 || isDatabaseUnavailable(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      // The batch rolled back whole: each item alone, so only the one whose write is refused fails.
      await Promise.all(
        batch.map((waiting) =>
          this.#run([waiting.item]).then(([value]) => waiting.resolve(value as O), waiting.reject),
        ),
      );
    }
  }
}
