import { allForYear, isAHoliday } from '@18f/us-federal-holidays';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addBusinessDays,
  federalReserveHolidays,
  isBusinessDay,
  isFederalReserveHoliday,
  nextBusinessDayOnOrAfter,
  subtractBusinessDays,
} from './business-days';
import { addCalendarDays } from './calendar-date';

const dates = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2060-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

describe('Federal Reserve holidays', () => {
  it('lists the eleven holidays of 2026 as the Fed observes them', () => {
    expect([...federalReserveHolidays(2026)]).toEqual([
      '2026-01-01',
      '2026-01-19',
      '2026-02-16',
      '2026-05-25',
      '2026-06-19',
      '2026-07-04', // a Saturday: not moved to Friday
      '2026-09-07',
      '2026-10-12',
      '2026-11-11',
      '2026-11-26',
      '2026-12-25',
    ]);
  });

  it('does not move a Saturday holiday to Friday (the library’s OPM default would)', () => {
    // Independence Day 2026 is a Saturday.
    expect(isAHoliday(new Date(2026, 6, 3))).toBe(true); // OPM: observed Friday 07-03
    expect(isFederalReserveHoliday('2026-07-03')).toBe(false);
    expect(isBusinessDay('2026-07-03')).toBe(true);
    // New Year's Day 2028 is a Saturday: the Fed is open on Friday 2027-12-31, and Monday is not a holiday either.
    expect(isBusinessDay('2027-12-31')).toBe(true);
    expect(isBusinessDay('2028-01-03')).toBe(true);
    // Christmas 2027 is a Saturday.
    expect(isBusinessDay('2027-12-24')).toBe(true);
    // New Year's Day 2022 is a Saturday.
    expect(isBusinessDay('2021-12-31')).toBe(true);
  });

  it('moves a Sunday holiday to Monday', () => {
    expect(isFederalReserveHoliday('2023-01-02')).toBe(true); // New Year's Day 2023 is a Sunday
    expect(isBusinessDay('2023-01-02')).toBe(false);
    expect(isFederalReserveHoliday('2022-06-20')).toBe(true); // Juneteenth 2022 is a Sunday
    expect(isBusinessDay('2022-06-20')).toBe(false);
    expect(isBusinessDay('2022-12-26')).toBe(false); // Christmas 2022 is a Sunday
    expect(isBusinessDay('2027-07-05')).toBe(false); // Independence Day 2027 is a Sunday
  });

  it('includes Juneteenth from 2021 only', () => {
    expect(isBusinessDay('2021-06-18')).toBe(true); // 2021-06-19 is a Saturday: not moved
    expect(isBusinessDay('2020-06-19')).toBe(true);
    expect(isBusinessDay('2024-06-19')).toBe(false);
  });

  it('gives the same dates whatever the process time zone', () => {
    const original = process.env.TZ;
    const datesIn = (zone: string) => {
      process.env.TZ = zone;
      return allForYear(2026, { shiftSaturdayHolidays: false }).map((holiday) => holiday.dateString);
    };
    try {
      const expected = [...federalReserveHolidays(2026)];
      for (const zone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/Los_Angeles', 'UTC']) {
        expect(datesIn(zone)).toEqual(expected);
      }
    } finally {
      if (original === undefined) delete process.env.TZ;
      else process.env.TZ = original;
    }
  });
});

describe('isBusinessDay', () => {
  it('is Monday to Friday outside holidays', () => {
    expect(isBusinessDay('2026-11-20')).toBe(true); // Friday
    expect(isBusinessDay('2026-11-21')).toBe(false); // Saturday
    expect(isBusinessDay('2026-11-22')).toBe(false); // Sunday
    expect(isBusinessDay('2026-11-23')).toBe(true); // Monday
    expect(isBusinessDay('2026-11-26')).toBe(false); // Thanksgiving
    expect(isBusinessDay('2026-11-27')).toBe(true); // the Friday after is open
    expect(isBusinessDay('2026-12-25')).toBe(false); // Christmas, a Friday
  });

  it('refuses what is not a calendar date', () => {
    expect(() => isBusinessDay('2026-11-31')).toThrow(RangeError);
    expect(() => addBusinessDays('20261120', 1)).toThrow(RangeError);
  });
});

describe('nextBusinessDayOnOrAfter', () => {
  it('keeps a business day and skips weekends and holidays', () => {
    expect(nextBusinessDayOnOrAfter('2026-11-20')).toBe('2026-11-20');
    expect(nextBusinessDayOnOrAfter('2026-11-21')).toBe('2026-11-23');
    expect(nextBusinessDayOnOrAfter('2026-11-26')).toBe('2026-11-27');
    expect(nextBusinessDayOnOrAfter('2022-12-24')).toBe('2022-12-27');
  });
});

describe('addBusinessDays', () => {
  it('counts business days strictly after the date', () => {
    expect(addBusinessDays('2026-11-20', 1)).toBe('2026-11-23'); // Fri → Mon
    expect(addBusinessDays('2026-11-25', 1)).toBe('2026-11-27'); // over Thanksgiving
    expect(addBusinessDays('2026-12-24', 1)).toBe('2026-12-28'); // over Christmas (Friday)
    expect(addBusinessDays('2026-07-02', 1)).toBe('2026-07-03'); // 07-03 open under the Fed rule
    expect(addBusinessDays('2026-07-02', 3)).toBe('2026-07-07');
    expect(addBusinessDays('2026-11-21', 1)).toBe('2026-11-23'); // from a Saturday
    expect(addBusinessDays('2022-12-23', 3)).toBe('2022-12-29'); // 12-26 observed Christmas
    expect(addBusinessDays('2027-12-30', 2)).toBe('2028-01-03'); // over a Saturday New Year's Day
  });

  it('returns the date itself for n = 0 and refuses a negative or fractional n', () => {
    expect(addBusinessDays('2026-11-21', 0)).toBe('2026-11-21');
    expect(() => addBusinessDays('2026-11-20', -1)).toThrow(RangeError);
    expect(() => addBusinessDays('2026-11-20', 1.5)).toThrow(RangeError);
  });

  it('lands on a business day with exactly n business days in (date, result]', () => {
    fc.assert(
      fc.property(dates, fc.integer({ min: 1, max: 40 }), (date, n) => {
        const result = addBusinessDays(date, n);
        expect(isBusinessDay(result)).toBe(true);
        let count = 0;
        for (let day = addCalendarDays(date, 1); day <= result; day = addCalendarDays(day, 1)) {
          if (isBusinessDay(day)) count++;
        }
        expect(count).toBe(n);
      }),
    );
  });

  it('composes: adding a then b is adding a + b', () => {
    fc.assert(
      fc.property(dates, fc.nat(20), fc.nat(20), (date, a, b) => {
        expect(addBusinessDays(addBusinessDays(date, a), b)).toBe(addBusinessDays(date, a + b));
      }),
    );
  });

  it('never needs more than a week for one business day', () => {
    fc.assert(
      fc.property(dates, (date) => {
        expect(addBusinessDays(date, 1) <= addCalendarDays(date, 5)).toBe(true);
      }),
    );
  });
});

describe('subtractBusinessDays', () => {
  it('counts business days strictly before the date', () => {
    expect(subtractBusinessDays('2026-11-23', 1)).toBe('2026-11-20'); // Mon → Fri
    expect(subtractBusinessDays('2026-11-27', 1)).toBe('2026-11-25'); // over Thanksgiving
    expect(subtractBusinessDays('2026-11-22', 1)).toBe('2026-11-20'); // from a Sunday
    expect(subtractBusinessDays('2026-11-21', 0)).toBe('2026-11-21');
    expect(() => subtractBusinessDays('2026-11-20', -1)).toThrow(RangeError);
  });

  it('undoes addBusinessDays from a business day', () => {
    fc.assert(
      fc.property(dates, fc.integer({ min: 0, max: 40 }), (date, n) => {
        const start = nextBusinessDayOnOrAfter(date);
        expect(subtractBusinessDays(addBusinessDays(start, n), n)).toBe(start);
      }),
    );
  });
});
