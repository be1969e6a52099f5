import { describe, expect, it } from 'vitest';
import { wakeableLoop } from './wakeable-loop';

/** A round the test ends by hand, and the rounds started so far. */
function controlledRounds() {
  const started: Array<() => void> = [];
  let onStart: (() => void) | undefined;
  const round = () =>
    new Promise<void>((resolve) => {
      started.push(resolve);
      onStart?.();
    });
  const nextStart = () =>
    new Promise<void>((resolve) => {
      onStart = resolve;
    });
  return { round, started, nextStart };
}

const HOUR = 3_600_000;

describe('wakeableLoop', () => {
  it('runs a round at once, then waits the interval unless woken', async () => {
    const rounds = controlledRounds();
    const loop = wakeableLoop({ round: rounds.round, intervalMs: HOUR, onError: () => {} });
    expect(rounds.started).toHaveLength(1);
    const second = rounds.nextStart();
    rounds.started[0]!();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(rounds.started).toHaveLength(1); // waiting the hour
    loop.wake();
    await second;
    expect(rounds.started).toHaveLength(2);
    rounds.started[1]!();
    await loop.close();
  });

  it('starts another round right after one that was woken while it ran, once for many wakes', async () => {
    const rounds = controlledRounds();
    const loop = wakeableLoop({ round: rounds.round, intervalMs: HOUR, onError: () => {} });
    const second = rounds.nextStart();
    loop.wake();
    loop.wake();
    loop.wake();
    rounds.started[0]!();
    await second; // not an hour later
    expect(rounds.started).toHaveLength(2);
    rounds.started[1]!();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(rounds.started).toHaveLength(2); // three wakes, one more round
    await loop.close();
  });

  it('keeps rounds minGapMs apart when woken, and runs at once when woken after that', async () => {
    const starts: number[] = [];
    let wokenAgain: () => void = () => {};
    const threeRounds = new Promise<void>((resolve) => {
      wokenAgain = resolve;
    });
    const loop = wakeableLoop({
      round: async () => {
        // The round's start, read before it awaits: a late timer under load must not shorten the gap measured.
        const started = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 1)); // `loop` is assigned once the first round awaits
        starts.push(started);
        if (starts.length === 1) loop.wake(); // woken while it runs
        if (starts.length === 3) wokenAgain();
      },
      intervalMs: HOUR,
      minGapMs: 100,
      onError: () => {},
    });
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(starts).toHaveLength(2);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(95); // timers may fire a millisecond early
    const wokenAt = Date.now();
    loop.wake(); // long after the last round: no gap to keep
    await threeRounds;
    expect(starts[2]! - wokenAt).toBeLessThan(50);
    await loop.close();
  });

  it('reports a failed round and goes on', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    let secondRound: () => void = () => {};
    const second = new Promise<void>((resolve) => {
      secondRound = resolve;
    });
    const loop = wakeableLoop({
      round: async () => {
        calls += 1;
        if (calls === 1) throw new Error('database down');
        secondRound();
      },
      intervalMs: 10,
      onError: (error) => errors.push(error),
    });
    await second;
    expect(errors).toEqual([new Error('database down')]);
    await loop.close();
  });

  it('close waits for the round under way and starts no other', async () => {
    const rounds = controlledRounds();
    const loop = wakeableLoop({ round: rounds.round, intervalMs: HOUR, onError: () => {} });
    let closed = false;
    const closing = loop.close().then(() => {
      closed = true;
    });
    loop.wake();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(false);
    rounds.started[0]!();
    await closing;
    expect(rounds.started).toHaveLength(1);
  });
});
