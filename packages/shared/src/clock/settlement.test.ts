import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBusinessDay } from './business-days';
import { addCalendarDays } from './calendar-date';
import { pacificDate, startOfPacificDay } from './pacific';
import { settleAtFor } from './settlement';

const at = (iso: string) => new Date(iso);
const settles = (processedAt: string, businessDays: number) => settleAtFor(at(processedAt), businessDays).toISOString();

describe('settleAtFor', () => {
  it('card (1 business day): Friday settles as Monday begins', () => {
    expect(settles('2026-11-20T18:00:00.000Z', 1)).toBe('2026-11-23T08:00:00.000Z'); // Fri 10:00 PST → Mon 00:00 PST
  });

  it('skips Thanksgiving and Christmas', () => {
    expect(settles('2026-11-25T18:00:00.000Z', 1)).toBe('2026-11-27T08:00:00.000Z'); // Wed → Fri 00:00
    expect(settles('2026-12-24T18:00:00.000Z', 1)).toBe('2026-12-28T08:00:00.000Z'); // Thu → Mon 00:00
  });

  it('places a payment on its Pacific processing day', () => {
    // Monday 2026-11-23 23:30 PST belongs to Monday and settles half an hour later, as Tuesday begins.
    expect(settles('2026-11-24T07:30:00.000Z', 1)).toBe('2026-11-24T08:00:00.000Z');
    // Tuesday 00:30 PST belongs to Tuesday.
    expect(settles('2026-11-24T08:30:00.000Z', 1)).toBe('2026-11-25T08:00:00.000Z');
  });

  it('ACH (3 business days) around a Saturday Independence Day: Friday 07-03 counts', () => {
    expect(settles('2026-07-02T17:00:00.000Z', 3)).toBe('2026-07-07T07:00:00.000Z'); // Thu → Fri, Mon, Tue 00:00 PDT
    expect(settles('2026-07-03T17:00:00.000Z', 3)).toBe('2026-07-08T07:00:00.000Z'); // Fri → Mon, Tue, Wed
  });

  it('ACH (3 business days) across year ends, New Year holidays skipped', () => {
    expect(settles('2026-12-30T20:00:00.000Z', 3)).toBe('2027-01-05T08:00:00.000Z'); // Wed → Thu, (Fri 01-01), Mon, Tue
    expect(settles('2026-12-31T20:00:00.000Z', 3)).toBe('2027-01-06T08:00:00.000Z'); // Thu → (Fri 01-01), Mon, Tue, Wed
    expect(settles('2022-12-29T20:00:00.000Z', 3)).toBe('2023-01-04T08:00:00.000Z'); // Thu → Fri, (Mon 01-02), Tue, Wed
  });

  it('around Sunday holidays observed on Monday and a Saturday New Year', () => {
    expect(settles('2022-12-30T20:00:00.000Z', 1)).toBe('2023-01-03T08:00:00.000Z'); // Mon 2023-01-02 closed
    expect(settles('2022-06-17T20:00:00.000Z', 1)).toBe('2022-06-21T07:00:00.000Z'); // Mon 2022-06-20 closed
    expect(settles('2027-12-30T20:00:00.000Z', 1)).toBe('2027-12-31T08:00:00.000Z'); // Fri 2027-12-31 open
  });

  it('from a weekend, counts from the weekend day', () => {
    expect(settles('2026-11-21T18:00:00.000Z', 1)).toBe('2026-11-23T08:00:00.000Z'); // Sat → Mon 00:00
  });

  it('crosses DST boundaries at Pacific midnight', () => {
    expect(settles('2026-03-06T20:00:00.000Z', 1)).toBe('2026-03-09T07:00:00.000Z'); // Fri PST → Mon PDT
    expect(settles('2026-10-30T20:00:00.000Z', 1)).toBe('2026-11-02T08:00:00.000Z'); // Fri PDT → Mon PST
  });

  it('same-day (0 business days): at the cutoff of the processing day, or of the next business day', () => {
    expect(settles('2026-11-20T18:00:00.000Z', 0)).toBe('2026-11-21T08:00:00.000Z'); // Fri → Fri's cutoff
    expect(settles('2026-11-21T18:00:00.000Z', 0)).toBe('2026-11-24T08:00:00.000Z'); // Sat → Mon's cutoff
    expect(settles('2026-11-26T18:00:00.000Z', 0)).toBe('2026-11-28T08:00:00.000Z'); // Thanksgiving → Fri's cutoff
  });

  it('refuses a negative or fractional number of business days', () => {
    expect(() => settleAtFor(at('2026-11-20T18:00:00.000Z'), -1)).toThrow(RangeError);
    expect(() => settleAtFor(at('2026-11-20T18:00:00.000Z'), 1.5)).toThrow(RangeError);
  });

  it('is always a Pacific midnight after the processing day, and on a business day when N ≥ 1', () => {
    const instants = fc.date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2060-12-31T00:00:00Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instants, fc.nat(10), (processedAt, n) => {
        const settleAt = settleAtFor(processedAt, n);
        const day = pacificDate(settleAt);
        expect(settleAt.getTime()).toBe(startOfPacificDay(day).getTime());
        expect(day > pacificDate(processedAt)).toBe(true);
        if (n > 0) {
          expect(isBusinessDay(day)).toBe(true);
          expect(settleAtFor(processedAt, n + 1).getTime()).toBeGreaterThan(settleAt.getTime());
        } else {
          expect(isBusinessDay(addCalendarDays(day, -1))).toBe(true);
        }
      }),
    );
  });
});
