import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addCalendarDays, calendarDateParts, dayOfWeek, isCalendarDate } from './calendar-date';

describe('calendar dates', () => {
  it('accepts only real YYYY-MM-DD dates', () => {
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('0099-01-01')).toBe(true);
    for (const bad of ['2026-02-29', '2026-13-01', '2026-00-10', '2026-1-5', '2026-01-05T00:00:00Z', '', 'today']) {
      expect(isCalendarDate(bad)).toBe(false);
    }
    expect(() => addCalendarDays('2026-02-30', 1)).toThrow(RangeError);
  });

  it('adds days across months, years and leap days', () => {
    expect(addCalendarDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addCalendarDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addCalendarDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addCalendarDays('2026-03-08', 0)).toBe('2026-03-08');
    expect(() => addCalendarDays('2026-03-08', 0.5)).toThrow(RangeError);
  });

  it('knows the weekday', () => {
    expect(dayOfWeek('2026-11-20')).toBe(5); // Friday
    expect(dayOfWeek('2026-07-04')).toBe(6);
    expect(dayOfWeek('2023-01-01')).toBe(0);
    expect(calendarDateParts('2026-07-04')).toEqual({ year: 2026, month: 7, day: 4 });
  });

  it('adding then subtracting days is the identity', () => {
    const dates = fc
      .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    fc.assert(
      fc.property(dates, fc.integer({ min: -5000, max: 5000 }), (date, days) => {
        expect(addCalendarDays(addCalendarDays(date, days), -days)).toBe(date);
        expect(dayOfWeek(addCalendarDays(date, days))).toBe((((dayOfWeek(date) + days) % 7) + 7) % 7);
      }),
    );
  });
});
