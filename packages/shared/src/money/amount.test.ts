import { z } from '@hono/zod-openapi';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountMessages, amountString, formatCents, parseAmount } from './amount';

const bounds = { min: 50, max: 100_000_000 };

describe('parseAmount', () => {
  it('reads digit strings as integer cents, leading zeros included', () => {
    expect(parseAmount('1000', bounds)).toBe(1000);
    expect(parseAmount('0050', bounds)).toBe(50);
    expect(parseAmount('100000000', bounds)).toBe(100_000_000);
    expect(parseAmount('001', { min: 1, max: 10 })).toBe(1);
  });

  it.each(['', ' 100', '100 ', '-100', '+100', '1.5', '10.00', '1e3', '0x10', '１００', '100n'])(
    'refuses %j as not a string of digits',
    (value) => {
      expect(() => parseAmount(value, bounds)).toThrow(amountMessages.notDigits);
    },
  );

  it('enforces the bounds with their own messages', () => {
    expect(() => parseAmount('49', bounds)).toThrow('amount must be at least 50 cents');
    expect(() => parseAmount('0', bounds)).toThrow('amount must be at least 50 cents');
    expect(() => parseAmount('100000001', bounds)).toThrow('amount must be at most 100000000 cents');
    expect(() => parseAmount('9'.repeat(400), bounds)).toThrow('amount must be at most 100000000 cents');
  });

  it('refuses nonsensical bounds', () => {
    expect(() => parseAmount('1', { min: 10, max: 5 })).toThrow(RangeError);
    expect(() => parseAmount('1', { min: 0.5, max: 5 })).toThrow(RangeError);
  });

  it('round-trips with formatCents for every amount in range', () => {
    fc.assert(
      fc.property(fc.integer(bounds), fc.nat(5), (cents, zeros) => {
        expect(parseAmount('0'.repeat(zeros) + formatCents(cents), bounds)).toBe(cents);
      }),
    );
  });
});

describe('amountString', () => {
  const schema = z.object({ amount: amountString(bounds) });
  const messages = (input: unknown) => {
    const result = schema.safeParse(input);
    return result.success ? [] : result.error.issues.map((issue) => issue.message);
  };

  it('transforms to a number of cents', () => {
    expect(schema.parse({ amount: '001000' })).toEqual({ amount: 1000 });
  });

  it('gives one clear message per failure', () => {
    expect(messages({ amount: '12.50' })).toEqual(['amount must be a string of digits (integer cents)']);
    expect(messages({ amount: 1000 })).toEqual(['amount must be a string of digits (integer cents)']);
    expect(messages({ amount: null })).toEqual(['amount must be a string of digits (integer cents)']);
    expect(messages({ amount: '49' })).toEqual(['amount must be at least 50 cents']);
    expect(messages({ amount: '100000001' })).toEqual(['amount must be at most 100000000 cents']);
  });

  it('keeps zod’s own message for a missing amount, which the error mapper reports as missing_field', () => {
    expect(messages({})).toEqual([expect.stringMatching(/received undefined/)]);
  });
});

describe('formatCents', () => {
  it('renders integers as digit strings', () => {
    expect(formatCents(0)).toBe('0');
    expect(formatCents(59)).toBe('59');
    expect(formatCents(100_000_000)).toBe('100000000');
    expect(formatCents(12_345_678_901n)).toBe('12345678901');
    expect(formatCents(-125)).toBe('-125');
  });

  it('refuses anything that is not a safe integer', () => {
    expect(() => formatCents(1.5)).toThrow(RangeError);
    expect(() => formatCents(Number.NaN)).toThrow(RangeError);
    expect(() => formatCents(2 ** 53)).toThrow(RangeError);
  });
});
