import { allForYear } from '@18f/us-federal-holidays';
import { addCalendarDays, type CalendarDate, calendarDateParts, dayOfWeek } from './calendar-date';

// The Federal Reserve's rule, not OPM's: a holiday on Sunday is observed on Monday, but a holiday on Saturday
// is not moved to Friday (the Fed is open that Friday). The library defaults to OPM's rule, hence the options.
const FED_RULE = { shiftSundayHolidays: true, shiftSaturdayHolidays: false } as const;

const holidaysByYear = new Map<number, ReadonlySet<CalendarDate>>();

/** Observed Federal Reserve holidays of a year ('YYYY-MM-DD'); Juneteenth from 2021 on. */
export function federalReserveHolidays(year: number): ReadonlySet<CalendarDate> {
  let holidays = holidaysByYear.get(year);
  if (!holidays) {
    // The library builds and formats its dates in local time consistently, so dateString is the calendar date
    // whatever the process time zone.
    holidays = new Set(allForYear(year, FED_RULE).map((holiday) => holiday.dateString));
    holidaysByYear.set(year, holidays);
  }
  return holidays;
}

export function isFederalReserveHoliday(date: CalendarDate): boolean {
  return federalReserveHolidays(calendarDateParts(date).year).has(date);
}

/** Monday to Friday and not an observed Federal Reserve holiday. */
export function isBusinessDay(date: CalendarDate): boolean {
  const weekday = dayOfWeek(date);
  return weekday !== 0 && weekday !== 6 && !isFederalReserveHoliday(date);
}

export function nextBusinessDayOnOrAfter(date: CalendarDate): CalendarDate {
  let day = date;
  while (!isBusinessDay(day)) day = addCalendarDays(day, 1);
  return day;
}

/**
 * The n-th business day strictly after `date` (n = 0 returns `date` itself, business day or not), so that
 * addBusinessDays(addBusinessDays(d, a), b) = addBusinessDays(d, a + b).
 */
export function addBusinessDays(date: CalendarDate, n: number): CalendarDate {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
  let day = date;
  calendarDateParts(day); // validates even when n = 0
  for (let left = n; left > 0; left--) day = nextBusinessDayOnOrAfter(addCalendarDays(day, 1));
  return day;
}

/**
 * The n-th business day strictly before `date` (n = 0 returns `date` itself), the mirror of `addBusinessDays`: a
 * payout delayed by n business days pays the money that became available on or before this day.
 */
export function subtractBusinessDays(date: CalendarDate, n: number): CalendarDate {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
  let day = date;
  calendarDateParts(day); // validates even when n = 0
  for (let left = n; left > 0; left--) {
    day = addCalendarDays(day, -1);
    while (!isBusinessDay(day)) day = addCalendarDays(day, -1);
  }
  return day;
}
