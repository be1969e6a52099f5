import { abaChecksumValid } from '../banking/routing-number';
import { calendarDateParts } from '../clock/calendar-date';

// A NACHA file's fields: the record layout's constants, and each field cleaned, padded to its width or refused
// (RangeError) by the writer (nacha.ts) and the readers (nacha-read.ts).

/** 27 debit checking, 37 debit savings, 22 credit checking, 32 credit savings. */
export type NachaTransactionCode = '27' | '37' | '22' | '32';

export const NACHA_RECORD_LENGTH = 94;
export const NACHA_BLOCKING_FACTOR = 10;
export const PADDING_RECORD = '9'.repeat(NACHA_RECORD_LENGTH);
export const DEBIT_CODES: ReadonlySet<string> = new Set<NachaTransactionCode>(['27', '37']);
export const MAX_TOTAL = 999_999_999_999; // 12-digit control total fields

export function fail(field: string, message: string): never {
  throw new RangeError(`${field} ${message}`);
}

/**
 * Text for an alphanumeric field: accents dropped (NFKD), uppercased, anything outside printable
 * ASCII (0x20–0x7E, NACHA's character set) removed, and trimmed. Line breaks can never reach a record.
 */
export function nachaText(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^\x20-\x7e]/g, '')
    .trim();
}

/** Left-justified, space-padded; the value must already fit. */
export const alpha = (value: string, width: number) => value.padEnd(width, ' ');

/** Right-justified, zero-padded non-negative integer; refused if it does not fit. */
export function numeric(value: number, width: number, field: string): string {
  const digits = String(value);
  if (!Number.isSafeInteger(value) || value < 0 || digits.length > width) {
    fail(field, `must be a non-negative integer of at most ${width} digits, got ${value}`);
  }
  return digits.padStart(width, '0');
}

export function str(value: unknown, field: string): string {
  if (typeof value !== 'string') fail(field, 'must be a string');
  return value;
}

/** Cleaned text cut to the field width (names). */
export function name(value: unknown, width: number, field: string, required: boolean): string {
  const text = nachaText(str(value, field)).slice(0, width).trimEnd();
  if (required && text === '') fail(field, 'must not be empty');
  return alpha(text, width);
}

/** Cleaned text that must fit the field as is (codes and identifiers). */
export function code(value: unknown, width: number, field: string, required: boolean): string {
  const text = nachaText(str(value, field));
  if (required && text === '') fail(field, 'must not be empty');
  if (text.length > width) fail(field, `must be at most ${width} characters, got ${text.length}`);
  return alpha(text, width);
}

export function routing(value: unknown, field: string): string {
  const text = str(value, field);
  if (!/^\d{9}$/.test(text)) fail(field, 'must be 9 digits');
  if (!abaChecksumValid(text)) fail(field, 'fails the ABA checksum');
  return text;
}

export function yymmdd(date: string, field: string): string {
  let parts: { year: number; month: number; day: number };
  try {
    parts = calendarDateParts(str(date, field));
  } catch {
    return fail(field, `must be a calendar date YYYY-MM-DD, got ${date}`);
  }
  return [parts.year % 100, parts.month, parts.day].map((n) => String(n).padStart(2, '0')).join('');
}

export function creationStamp(createdAt: Date): { date: string; time: string } {
  if (!(createdAt instanceof Date) || Number.isNaN(createdAt.getTime())) fail('createdAt', 'must be a valid Date');
  const two = (n: number) => String(n).padStart(2, '0');
  return {
    date: two(createdAt.getUTCFullYear() % 100) + two(createdAt.getUTCMonth() + 1) + two(createdAt.getUTCDate()),
    time: two(createdAt.getUTCHours()) + two(createdAt.getUTCMinutes()),
  };
}

/** Exactly 10 uppercase printable ASCII characters, not all spaces (an identifier: never cleaned up or cut). */
export function tenCharacters(value: unknown, field: string): string {
  const text = str(value, field);
  if (!/^[\x20-\x7e]{10}$/.test(text) || text !== text.toUpperCase() || text.trim() === '') {
    fail(field, 'must be exactly 10 uppercase printable ASCII characters');
  }
  return text;
}

export function immediateOrigin(value: unknown): string {
  const text = str(value, 'immediateOrigin');
  if (/^\d{9}$/.test(text)) return ` ${text}`;
  if (text.length !== 10) fail('immediateOrigin', 'must be 9 digits or exactly 10 characters');
  return tenCharacters(text, 'immediateOrigin');
}

export function checkRecord(record: string): string {
  // Every field above is padded or refused to its exact width; this guards the layout itself.
  if (record.length !== NACHA_RECORD_LENGTH) throw new Error(`NACHA record of ${record.length} characters: ${record}`);
  return record;
}

const MAX_TRACE_SEQUENCE = 9_999_999; // 7-digit trace sequence number

export function traceSequence(value: number | undefined, field: string): string {
  if (value === undefined) fail('traceSequences', 'must give one trace sequence number per entry');
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_TRACE_SEQUENCE) {
    fail(field, `must be an integer from 1 to ${MAX_TRACE_SEQUENCE}, got ${value}`);
  }
  return numeric(value, 7, field);
}

export function addTotal(total: number, amount: number, field: string): number {
  const sum = total + amount;
  if (sum > MAX_TOTAL) fail(field, `exceeds the 12-digit field (${MAX_TOTAL} cents)`);
  return sum;
}
