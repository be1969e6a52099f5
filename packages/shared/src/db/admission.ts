/**
 * At most `limit` callers run at once; the others wait their turn in memory, in arrival order. New payments go
 * through one (docs/design.md, The payment write path): under a burst they queue here, where waiting costs nothing,
 * rather than in the pool's queue, where every read of every other request would wait behind their statements.
 */
export class Admission {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (limit < 1) throw new Error('admission: limit ≥ 1');
    this.#free = limit;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free -= 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await fn();
    } finally {
      // The turn passes to the next in line, or back to the pool of free turns.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free += 1;
    }
  }

  /** Callers waiting for a turn (for tests and metrics). */
  get waiting() {
    return this.#waiting.length;
  }
}
