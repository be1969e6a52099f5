import { describe, expect, it } from 'vitest';
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
});
