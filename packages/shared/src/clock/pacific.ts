import { TZDate } from '@date-fns/tz';
import { addCalendarDays, type CalendarDate, calendarDateParts } from './calendar-date';

/** "Today", the cutoff and the void window are all in Pacific time (docs/design.md). */
export const PACIFIC_TIME_ZONE = 'America/Los_Angeles';

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** The processing day of an instant: its calendar date in America/Los_Angeles. */
export function pacificDate(instant: Date): CalendarDate {
  if (Number.isNaN(instant.getTime())) throw new RangeError('pacificDate needs a valid Date');
  // Every instant of one UTC hour has the same Pacific date (Pacific offsets are whole hours and change on the
  // hour), so the time-zone arithmetic runs once an hour, not once a payment (docs/decisions.md, "Performance of
  // the payment path").
  return remembered(datesByHour, Math.floor(instant.getTime() / HOUR_MS), () => {
    const local = new TZDate(instant.getTime(), PACIFIC_TIME_ZONE);
    return `${pad(local.getFullYear(), 4)}-${pad(local.getMonth() + 1)}-${pad(local.getDate())}`;
  });
}

/** 00:00 Pacific on the date, as an instant. Midnight always exists there: DST changes at 02:00. */
export function startOfPacificDay(date: CalendarDate): Date {
  const start = remembered(startsByDate, date, () => {
    const { year, month, day } = calendarDateParts(date);
    return new TZDate(year, month - 1, day, 0, 0, 0, 0, PACIFIC_TIME_ZONE).getTime();
  });
  return new Date(start);
}

const HOUR_MS = 3_600_000;
const datesByHour = new Map<number, CalendarDate>();
const startsByDate = new Map<CalendarDate, number>();

/** `compute()` kept under `key` in a small map (emptied when full: the keys in use are the last few hours). */
function remembered<K, V>(map: Map<K, V>, key: K, compute: () => V): V {
  const known = map.get(key);
  if (known !== undefined) return known;
  const value = compute();
  if (map.size >= 256) map.clear();
  map.set(key, value);
  return value;
}

/** 23:59:59.999 Pacific on the date (the day's cutoff), as an instant; 23, 24 or 25 hours after its start. */
export function endOfPacificDay(date: CalendarDate): Date {
  return new Date(startOfPacificDay(addCalendarDays(date, 1)).getTime() - 1);
}

/** A card payment can be voided until the end of the Pacific day it was processed on. */
export function voidWindowEnd(processedAt: Date): Date {
  return endOfPacificDay(pacificDate(processedAt));
}

export function isWithinVoidWindow(processedAt: Date, now: Date): boolean {
  return now.getTime() <= voidWindowEnd(processedAt).getTime();
}
