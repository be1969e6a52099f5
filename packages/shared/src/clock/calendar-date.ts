/** A calendar date, 'YYYY-MM-DD': a day, not an instant. Business-day arithmetic works on these. */
export type CalendarDate = string;

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** Midnight UTC of the date, as a carrier for day arithmetic only (never an instant of the business). */
function toUtcMidnight(date: CalendarDate): Date {
  const match = CALENDAR_DATE.exec(date);
  if (match) {
    const [, year, month, day] = match.map(Number) as [number, number, number, number];
    const utc = new Date(0);
    // setUTCFullYear, unlike Date.UTC, does not map years 0–99 onto 1900–1999.
    utc.setUTCFullYear(year, month - 1, day);
    if (utc.getUTCFullYear() === year && utc.getUTCMonth() === month - 1 && utc.getUTCDate() === day) return utc;
  }
  throw new RangeError(`Not a calendar date (YYYY-MM-DD): ${date}`);
}

function fromUtcMidnight(utc: Date): CalendarDate {
  return utc.toISOString().slice(0, 10);
}

export function isCalendarDate(value: string): boolean {
  try {
    toUtcMidnight(value);
    return true;
  } catch {
    return false;
  }
}

export function calendarDateParts(date: CalendarDate): { year: number; month: number; day: number } {
  const utc = toUtcMidnight(date);
  return { year: utc.getUTCFullYear(), month: utc.getUTCMonth() + 1, day: utc.getUTCDate() };
}

export function addCalendarDays(date: CalendarDate, days: number): CalendarDate {
  if (!Number.isInteger(days)) throw new RangeError(`days must be an integer, got ${days}`);
  return fromUtcMidnight(new Date(toUtcMidnight(date).getTime() + days * DAY_MS));
}

/** 0 = Sunday … 6 = Saturday. */
export function dayOfWeek(date: CalendarDate): number {
  return toUtcMidnight(date).getUTCDay();
}
