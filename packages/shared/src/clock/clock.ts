/** A source of "now". The account's sandbox clock is real time plus the account's offset. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

export const offsetClock = (offsetSeconds: number, base: Clock = systemClock): Clock => ({
  now: () => new Date(base.now().getTime() + offsetSeconds * 1000),
});

/** A clock tests move by hand. */
export function manualClock(start: Date | string = '2026-01-05T17:00:00.000Z') {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    set: (to: Date | string) => {
      current = new Date(to).getTime();
    },
    advance: (ms: number) => {
      current += ms;
    },
  };
}
