import { pacificDate } from '@pps/shared/clock';
import { type FieldProblem, invalid } from './problem';

export const MINIMUM_AGE = 18;
const EARLIEST_YEAR = 1900;

/** `MM-DD-YYYY` as `{year, month, day}` when it is a real calendar date, else undefined. */
export function parseBirthDate(value: string): { year: number; month: number; day: number } | undefined {
  const match = /^(\d{2})-(\d{2})-(\d{4})$/.exec(value);
  if (!match) return undefined;
  const [month, day, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real ? { year, month, day } : undefined;
}

/** The format and calendar check (the age needs the account's clock: see `ageProblem`). */
export function birthDateProblem(value: string): FieldProblem | undefined {
  const parsed = parseBirthDate(value);
  if (!parsed) return invalid('must be a real date written MM-DD-YYYY');
  if (parsed.year < EARLIEST_YEAR) return invalid(`must be in ${EARLIEST_YEAR} or later`);
  return undefined;
}

/** Whole years between the birth date and today's date in Pacific time (a 29 February birthday counts on 1 March). */
export function ageOn(birth: { year: number; month: number; day: number }, now: Date): number {
  const [year, month, day] = pacificDate(now).split('-').map(Number) as [number, number, number];
  const beforeBirthday = month < birth.month || (month === birth.month && day < birth.day);
  return year - birth.year - (beforeBirthday ? 1 : 0);
}

/** Undefined when the person is at least 18 on `now` (the account's sandbox clock), or the date is unreadable. */
export function ageProblem(value: string, now: Date): FieldProblem | undefined {
  const parsed = parseBirthDate(value);
  if (!parsed) return undefined;
  return ageOn(parsed, now) >= MINIMUM_AGE ? undefined : invalid(`the owner must be at least ${MINIMUM_AGE} years old`);
}
