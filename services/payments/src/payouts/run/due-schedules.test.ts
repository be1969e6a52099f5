import { addCalendarDays, isBusinessDay, nextBusinessDayOnOrAfter } from '@pps/shared/clock';
import { schema } from '@pps/shared/db';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dueAnchors } from './due-schedules';

const { weekdays } = schema;

const dates = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2060-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

describe('dueAnchors', () => {
  it('is null on weekends and holidays: nobody is paid', () => {
    expect(dueAnchors('2026-11-21')).toBeNull(); // Saturday
    expect(dueAnchors('2026-11-26')).toBeNull(); // Thanksgiving
  });

  it('a weekday anchor is due on that weekday, or the next business day when it is a holiday', () => {
    expect(dueAnchors('2026-11-24')?.weekly).toEqual(['tuesday']);
    expect(dueAnchors('2026-11-27')?.weekly).toEqual(['thursday', 'friday']); // Thanksgiving Thursday → Friday
    expect(dueAnchors('2026-12-28')?.weekly).toEqual(['monday', 'friday']); // Christmas Friday → next Monday
    expect(dueAnchors('2026-11-25')?.weekly).toEqual(['wednesday']);
  });

  it('a day of the month is due on that day, its next business day, or the month’s last day when shorter', () => {
    // The 1st is a Sunday; October's 31st was a Saturday.
    expect(dueAnchors('2026-11-02')?.monthly).toEqual([1, 2, 31]);
    expect(dueAnchors('2026-11-30')?.monthly).toEqual([28, 29, 30, 31]); // 28/29 a weekend; 31 → the 30th
    // The 1st a Sunday; February's 28th (and 29–31, cut to it) a Saturday.
    expect(dueAnchors('2026-03-02')?.monthly).toEqual([1, 2, 28, 29, 30, 31]);
    expect(dueAnchors('2026-02-27')?.monthly).toEqual([27]);
    expect(dueAnchors('2027-01-04')?.monthly).toEqual([1, 2, 3, 4]); // New Year's Day, then the weekend
  });

  it('every anchor is due on its first business day on or after it, every week and every month', () => {
    // Each week's weekday (Monday to Friday): a holiday Friday pays on Monday, and that week's Friday pays too.
    fc.assert(
      fc.property(dates, fc.integer({ min: 0, max: 4 }), (date, index) => {
        const monday = addCalendarDays(date, -((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7));
        const due = nextBusinessDayOnOrAfter(addCalendarDays(monday, index));
        expect(dueAnchors(due)?.weekly).toContain(weekdays[index]);
        for (let day = addCalendarDays(monday, index); day < due; day = addCalendarDays(day, 1)) {
          expect(isBusinessDay(day)).toBe(false);
        }
      }),
    );
    // Every month's anchor (cut to the month's last day) is due on its first business day on or after it.
    fc.assert(
      fc.property(
        fc.integer({ min: 2000, max: 2060 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, anchor) => {
          const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
          const date = `${year}-${String(month).padStart(2, '0')}-${String(Math.min(anchor, last)).padStart(2, '0')}`;
          expect(dueAnchors(nextBusinessDayOnOrAfter(date))?.monthly).toContain(anchor);
        },
      ),
    );
  });
});
