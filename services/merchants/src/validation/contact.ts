import { isIP } from 'node:net';
import { digitsOf, type FieldProblem, invalid } from './problem';

/** Characters people type in phone numbers besides digits. */
const PHONE_PUNCTUATION = /^[\d\s().+-]+$/;

/** A US phone number's 10 digits (an optional leading country code 1 dropped), or undefined. */
export function phoneDigits(value: string): string | undefined {
  if (!PHONE_PUNCTUATION.test(value)) return undefined;
  const digits = digitsOf(value);
  if (digits.length === 10) return digits;
  if (digits.length === 11 && digits.startsWith('1')) return digits.slice(1);
  return undefined;
}

export function phoneProblem(value: string): FieldProblem | undefined {
  return phoneDigits(value)
    ? undefined
    : invalid('must be a 10-digit US phone number (e.g. 4155550100 or (415) 555-0100)');
}

// Pragmatic, not RFC 5322: one @, no spaces, a dotted domain with a 2+ letter TLD.
const EMAIL = /^[^\s@"(),:;<>[\]\\]+@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

export function emailProblem(value: string): FieldProblem | undefined {
  return value.length <= 254 && EMAIL.test(value) ? undefined : invalid('must be a valid email address');
}

/** Emails compare case-insensitively for duplicate detection. */
export const normalizeEmail = (value: string) => value.trim().toLowerCase();

export function urlProblem(value: string): FieldProblem | undefined {
  try {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.includes('.')) return undefined;
  } catch {
    // not a URL
  }
  return invalid('must be an http or https URL');
}

export function ipAddressProblem(value: string): FieldProblem | undefined {
  return isIP(value) ? undefined : invalid('must be an IPv4 or IPv6 address');
}

// ISO 8601 date-time with an explicit zone: what clients send as signature and verification times.
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

export function timestampProblem(value: string): FieldProblem | undefined {
  return ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))
    ? undefined
    : invalid('must be an ISO 8601 date-time with a time zone (e.g. 2026-11-01T10:05:00Z)');
}
