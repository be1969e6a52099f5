import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addCalendarDays } from './calendar-date';
import { endOfPacificDay, isWithinVoidWindow, pacificDate, startOfPacificDay, voidWindowEnd } from './pacific';

const at = (iso: string) => new Date(iso);
const instants = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2060-12-31T00:00:00Z'),
  noInvalidDate: true,
});

describe('pacificDate', () => {
  it('is the calendar date in Los Angeles, not in UTC', () => {
    expect(pacificDate(at('2026-11-24T07:30:00.000Z'))).toBe('2026-11-23'); // Monday 23:30 PST
    expect(pacificDate(at('2026-11-24T08:30:00.000Z'))).toBe('2026-11-24'); // Tuesday 00:30 PST
    expect(pacificDate(at('2026-06-16T06:59:59.999Z'))).toBe('2026-06-15'); // 23:59:59.999 PDT
    expect(pacificDate(at('2026-06-16T07:00:00.000Z'))).toBe('2026-06-16');
  });

  it('switches at Pacific midnight on both DST transition days', () => {
    expect(pacificDate(at('2026-03-08T07:59:59.999Z'))).toBe('2026-03-07'); // PST, -8
    expect(pacificDate(at('2026-03-08T08:00:00.000Z'))).toBe('2026-03-08');
    expect(pacificDate(at('2026-03-09T06:59:59.999Z'))).toBe('2026-03-08'); // PDT, -7
    expect(pacificDate(at('2026-11-01T06:59:59.999Z'))).toBe('2026-10-31'); // PDT
    expect(pacificDate(at('2026-11-01T07:00:00.000Z'))).toBe('2026-11-01');
    expect(pacificDate(at('2026-11-02T07:59:59.999Z'))).toBe('2026-11-01'); // PST
    expect(pacificDate(at('2026-11-02T08:00:00.000Z'))).toBe('2026-11-02');
  });

  it('refuses an invalid Date', () => {
    expect(() => pacificDate(new Date('nope'))).toThrow(RangeError);
  });
});

describe('start and end of the Pacific day', () => {
  it.each([
    ['2026-03-08', '2026-03-08T08:00:00.000Z', '2026-03-09T06:59:59.999Z'], // spring forward: 23 hours
    ['2026-11-01', '2026-11-01T07:00:00.000Z', '2026-11-02T07:59:59.999Z'], // fall back: 25 hours
    ['2026-06-15', '2026-06-15T07:00:00.000Z', '2026-06-16T06:59:59.999Z'],
    ['2026-01-05', '2026-01-05T08:00:00.000Z', '2026-01-06T07:59:59.999Z'],
    ['2026-03-09', '2026-03-09T07:00:00.000Z', '2026-03-10T06:59:59.999Z'],
  ])('%s runs from %s to %s', (date, start, end) => {
    expect(startOfPacificDay(date).toISOString()).toBe(start);
    expect(endOfPacificDay(date).toISOString()).toBe(end);
  });

  it('contains every instant of its own Pacific date, and days tile without gaps', () => {
    fc.assert(
      fc.property(instants, (instant) => {
        const date = pacificDate(instant);
        const start = startOfPacificDay(date).getTime();
        const end = endOfPacificDay(date).getTime();
        expect(start <= instant.getTime() && instant.getTime() <= end).toBe(true);
        expect([23, 24, 25].map((hours) => hours * 3_600_000 - 1)).toContain(end - start);
        expect(startOfPacificDay(addCalendarDays(date, 1)).getTime()).toBe(end + 1);
        expect(pacificDate(new Date(start))).toBe(date);
        expect(pacificDate(new Date(end))).toBe(date);
      }),
    );
  });
});

describe('void window', () => {
  it('ends at 23:59:59.999 Pacific on the processing day', () => {
    expect(voidWindowEnd(at('2026-11-23T18:00:00.000Z')).toISOString()).toBe('2026-11-24T07:59:59.999Z');
    // 23:30 Monday PT is still Monday: 29m59.999s left.
    expect(voidWindowEnd(at('2026-11-24T07:30:00.000Z')).toISOString()).toBe('2026-11-24T07:59:59.999Z');
    // 00:30 Tuesday PT is a new day.
    expect(voidWindowEnd(at('2026-11-24T08:30:00.000Z')).toISOString()).toBe('2026-11-25T07:59:59.999Z');
    // Processed during the repeated hour of the fall-back night.
    expect(voidWindowEnd(at('2026-11-01T09:30:00.000Z')).toISOString()).toBe('2026-11-02T07:59:59.999Z');
  });

  it('is open through the last millisecond and closed after it', () => {
    const processedAt = at('2026-06-15T16:00:00.000Z');
    expect(isWithinVoidWindow(processedAt, processedAt)).toBe(true);
    expect(isWithinVoidWindow(processedAt, at('2026-06-16T06:59:59.999Z'))).toBe(true);
    expect(isWithinVoidWindow(processedAt, at('2026-06-16T07:00:00.000Z'))).toBe(false);
  });
});
