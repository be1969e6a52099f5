import { describe, expect, it } from 'vitest';
import { ageOn, ageProblem, birthDateProblem, parseBirthDate } from './birth-date';

describe('birth dates', () => {
  it('reads MM-DD-YYYY real dates only', () => {
    expect(parseBirthDate('04-12-1985')).toEqual({ year: 1985, month: 4, day: 12 });
    expect(parseBirthDate('02-29-2000')).toEqual({ year: 2000, month: 2, day: 29 });
    for (const value of [
      '1985-04-12',
      '4-12-1985',
      '04/12/1985',
      '13-01-1985',
      '02-30-1985',
      '02-29-1999',
      '00-10-1985',
    ]) {
      expect(parseBirthDate(value)).toBeUndefined();
      expect(birthDateProblem(value)?.message).toMatch(/MM-DD-YYYY/);
    }
    expect(birthDateProblem('01-01-1899')?.message).toMatch(/1900/);
  });

  it('counts whole years on the Pacific calendar date of now', () => {
    const birth = { year: 2008, month: 6, day: 15 };
    expect(ageOn(birth, new Date('2026-06-15T19:00:00Z'))).toBe(18);
    // 06:00 UTC on the 15th is still the 14th in California.
    expect(ageOn(birth, new Date('2026-06-15T06:00:00Z'))).toBe(17);
    expect(ageOn(birth, new Date('2026-06-14T19:00:00Z'))).toBe(17);
  });

  it('is 18 on the 18th birthday, not the day before (a 29 February birthday counts on 1 March)', () => {
    expect(ageProblem('06-15-2008', new Date('2026-06-15T20:00:00Z'))).toBeUndefined();
    expect(ageProblem('06-15-2008', new Date('2026-06-14T20:00:00Z'))?.message).toMatch(/at least 18/);
    expect(ageProblem('02-29-2008', new Date('2026-02-28T20:00:00Z'))).toBeDefined();
    expect(ageProblem('02-29-2008', new Date('2026-03-01T20:00:00Z'))).toBeUndefined();
    expect(ageProblem('01-01-2030', new Date('2026-03-01T20:00:00Z'))).toBeDefined();
  });

  it('leaves unreadable dates to the format rule', () => {
    expect(ageProblem('not a date', new Date())).toBeUndefined();
  });
});
