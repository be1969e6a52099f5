import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * postgres.js's queue of connections and queries, as patches/postgres+3.4.9.patch leaves it: `remove` searches past
 * the shifted holes only, and the holes are dropped once they are most of the array (a queue that never emptied
 * grew with every shift, and each `remove` scanned it all). Checked against a plain array through long random runs
 * that never let it empty.
 */
type Queue<T> = { readonly length: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null };
const require = createRequire(import.meta.url);
const Queue = require(join(dirname(require.resolve('postgres')), 'queue.js')) as <T>(initial?: T[]) => Queue<T>;

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("postgres.js's queue (patched)", () => {
  it.each([1, 2, 3])('behaves as a plain array through 20,000 random operations (seed %i)', (seed) => {
    const next = random(seed);
    const queue = Queue<number>();
    const model: number[] = [];
    let counter = 0;
    for (let step = 0; step < 20_000; step++) {
      const roll = next();
      // Mostly push and shift, kept above a few items so the holes pile up as under steady load.
      if (roll < 0.4 || model.length < 3) {
        counter += 1;
        expect(queue.push(counter)).toBe(counter);
        model.push(counter);
      } else if (roll < 0.8) {
        expect(queue.shift()).toBe(model.shift());
      } else {
        const target = next() < 0.8 ? model[Math.floor(next() * model.length)] : -1; // now and then one not there
        const at = target === undefined ? -1 : model.indexOf(target);
        if (at >= 0) model.splice(at, 1);
        expect(queue.remove(target as number)).toBe(at >= 0 ? target : null);
      }
      expect(queue.length).toBe(model.length);
    }
    while (model.length > 0) expect(queue.shift()).toBe(model.shift());
    expect(queue.length).toBe(0);
  });

  it('does not find a shifted item again, and starts afresh once emptied by remove', () => {
    const queue = Queue<string>(['a', 'b', 'c']);
    expect(queue.shift()).toBe('a');
    expect(queue.remove('a')).toBeNull();
    expect(queue.remove('c')).toBe('c');
    expect(queue.remove('b')).toBe('b');
    expect(queue.length).toBe(0);
    queue.push('d');
    expect(queue.length).toBe(1);
    expect(queue.shift()).toBe('d');
  });
});
