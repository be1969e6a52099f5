import { afterEach, describe, expect, it, vi } from 'vitest';
import { EndpointSlots } from './endpoint-slots';

describe('endpoint slots', () => {
  it('lets a fast endpoint wait for a slot, and a slow one step aside at once for longer', async () => {
    const slots = new EndpointSlots(2);
    expect(slots.waitFor('fast', 100)).toBe(100);
    for (const took of [3, 4, 5]) {
      expect(await slots.acquire('fast', 0)).toBe(true);
      slots.release('fast', took);
    }
    expect(slots.waitFor('fast', 100)).toBe(100);
    expect(slots.stepAsideMs('fast')).toBeLessThan(1000);

    for (const took of [2000, 2100]) {
      expect(await slots.acquire('slow', 0)).toBe(true);
      slots.release('slow', took);
    }
    expect(slots.waitFor('slow', 100)).toBe(0);
    expect(slots.stepAsideMs('slow')).toBeGreaterThanOrEqual(8000);
  });

  it('counts an endpoint whose slots have all hung, with no answer yet, as slow', async () => {
    const slots = new EndpointSlots(2);
    expect(await slots.acquire('hung', 0)).toBe(true);
    expect(await slots.acquire('hung', 0)).toBe(true);
    expect(await slots.acquire('hung', 20)).toBe(false); // full: the wait ends
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(slots.waitFor('hung', 100)).toBe(0);
    // Other endpoints are not affected.
    expect(slots.waitFor('other', 100)).toBe(100);
    expect(await slots.acquire('other', 0)).toBe(true);
    // A freed slot goes to the next waiter at once.
    const waiting = slots.acquire('hung', 1000);
    slots.release('hung', 300);
    expect(await waiting).toBe(true);
  });

  describe('a slow endpoint with a backlog', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('is full once every slot is taken', async () => {
      const slots = new EndpointSlots(2);
      expect(slots.full('busy')).toBe(false);
      await slots.acquire('busy', 0);
      await slots.acquire('busy', 0);
      expect(slots.full('busy')).toBe(true);
      slots.release('busy', 10);
      expect(slots.full('busy')).toBe(false);
    });

    it('spreads its step-asides over the time its slots need to take them, and forgets them', async () => {
      vi.useFakeTimers();
      const slots = new EndpointSlots(2);
      expect(await slots.acquire('slow', 0)).toBe(true);
      slots.release('slow', 2000);
      // A few: about four answer times (8 s), jittered up to twice that.
      const few = Array.from({ length: 3 }, () => slots.stepAsideMs('slow'));
      for (const delay of few) expect(delay).toBeGreaterThanOrEqual(8000);
      for (const delay of few) expect(delay).toBeLessThan(16_000);
      // 100 more at once: 100 × 2 s ÷ 2 slots is past the bound, so each waits the most there is.
      const many = Array.from({ length: 100 }, () => slots.stepAsideMs('slow'));
      expect(many.at(-1)).toBe(60_000);
      // Ten half-lives later the count is about a tenth of one: four answer times again.
      vi.advanceTimersByTime(100_000);
      expect(slots.stepAsideMs('slow')).toBeLessThan(16_000);
      // Another endpoint's step-asides are its own.
      expect(slots.stepAsideMs('other')).toBeLessThan(1000);
    });

    it("steps a fast endpoint's backlog aside briefly when its slots stall once", async () => {
      vi.useFakeTimers();
      const slots = new EndpointSlots(1);
      for (let i = 0; i < 5; i++) {
        expect(await slots.acquire('fast', 0)).toBe(true);
        slots.release('fast', 1);
      }
      // Its one slot held 300 ms with no answer: slow for now, so its backlog steps aside at once.
      expect(await slots.acquire('fast', 0)).toBe(true);
      vi.advanceTimersByTime(300);
      expect(slots.waitFor('fast', 100)).toBe(0);
      // 500 of them: about four times the stall, jittered up to twice that, not 500 stalls ÷ 1 slot (the bound).
      const delays = Array.from({ length: 500 }, () => slots.stepAsideMs('fast'));
      for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(1200);
      for (const delay of delays) expect(delay).toBeLessThan(2400);
    });
  });
});
