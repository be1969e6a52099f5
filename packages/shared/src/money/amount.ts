import { z } from '@hono/zod-openapi';

/** Inclusive bounds of an amount in cents; callers pass them from config (MIN_AMOUNT_CENTS, MAX_AMOUNT_CENTS). */
export type AmountBounds = { min: number; max: number };

const DIGITS = /^\d+$/;

export const amountMessages = {
  notDigits: 'amount must be a string of digits (integer cents)',
  tooSmall: (min: number) => `amount must be at least ${min} cents`,
  tooLarge: (max: number) => `amount must be at most ${max} cents`,
} as const;

function checkBounds({ min, max }: AmountBounds): void {
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min < 0 || min > max) {
    throw new RangeError(`amount bounds must be safe integers with 0 <= min <= max, got [${min}, ${max}]`);
  }
}

type AmountCheck = { ok: true; cents: number } | { ok: false; message: string };

/** Digits only, so "-1", "1.5", "1e3", " 1" and "" are refused; leading zeros are fine ("001" is 1 cent). */
export function checkAmount(value: unknown, bounds: AmountBounds): AmountCheck {
  checkBounds(bounds);
  if (typeof value !== 'string' || !DIGITS.test(value)) return { ok: false, message: amountMessages.notDigits };
  // Number() of a long digit string may be inexact, but rounding is monotonic and max is a safe integer,
  // so the comparisons below are still exact; anything that passes them is a safe integer.
  const cents = Number(value);
  if (cents < bounds.min) return { ok: false, message: amountMessages.tooSmall(bounds.min) };
  if (cents > bounds.max) return { ok: false, message: amountMessages.tooLarge(bounds.max) };
  return { ok: true, cents };
}

/** The amount in cents, or a RangeError carrying the same message the schema gives. */
export function parseAmount(value: string, bounds: AmountBounds): number {
  const result = checkAmount(value, bounds);
  if (!result.ok) throw new RangeError(result.message);
  return result.cents;
}

/**
 * A request amount: a string of digits, parsed to integer cents within the bounds.
 * A missing value keeps zod's own message so the error mapper still reports it as a missing field.
 */
export const amountString = (bounds: AmountBounds) => {
  checkBounds(bounds);
  return z
    .string({ error: (issue) => (issue.input === undefined ? undefined : amountMessages.notDigits) })
    .transform((value, ctx) => {
      const result = checkAmount(value, bounds);
      if (result.ok) return result.cents;
      ctx.addIssue({ code: 'custom', message: result.message });
      return z.NEVER;
    })
    .openapi({
      type: 'string',
      pattern: '^\\d+$',
      description: `Integer cents as a string of digits, from ${bounds.min} to ${bounds.max}`,
      example: '1000',
    });
};

/** Integer cents rendered as the API writes them: "1000"; a negative balance gets a leading minus. */
export function formatCents(cents: number | bigint): string {
  if (typeof cents === 'number' && !Number.isSafeInteger(cents)) {
    throw new RangeError(`cents must be a safe integer, got ${cents}`);
  }
  return cents.toString();
}
