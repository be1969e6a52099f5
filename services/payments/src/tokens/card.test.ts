import { describe, expect, it } from 'vitest';
import { cardBrandOf, cardExpiresAt, isCardExpired, luhnValid, normalizeCardNumber } from './card';

describe('luhnValid', () => {
  it('accepts the sandbox cards and rejects a changed digit', () => {
    for (const number of [
      '4111111111111111',
      '4242424242424242',
      '5555555555554444',
      '378282246310005',
      '6011111111111117',
      '4000000000000002',
      '4000000000009995',
      '4000000000000069',
      '4000000000000119',
      '4000000000000010',
      '4000000000000028',
      '4000000000000036',
      '4000000000000044',
    ]) {
      expect(luhnValid(number), number).toBe(true);
    }
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('411111111111111a')).toBe(false);
    expect(luhnValid('')).toBe(false);
  });
});

describe('normalizeCardNumber', () => {
  it('drops spaces and dashes only', () => {
    expect(normalizeCardNumber('4111 1111-1111 1111')).toBe('4111111111111111');
    expect(normalizeCardNumber('4111.1111')).toBe('4111.1111');
  });
});

describe('cardBrandOf', () => {
  it.each([
    ['4111111111111111', 'visa'],
    ['5100000000000000', 'mastercard'],
    ['5555555555554444', 'mastercard'],
    ['2221000000000009', 'mastercard'],
    ['2720990000000000', 'mastercard'],
    ['2220990000000000', 'unknown'],
    ['2721000000000000', 'unknown'],
    ['5600000000000000', 'unknown'],
    ['340000000000000', 'amex'],
    ['378282246310005', 'amex'],
    ['6011111111111117', 'discover'],
    ['6500000000000000', 'discover'],
    ['6440000000000000', 'discover'],
    ['6490000000000000', 'discover'],
    ['6430000000000000', 'unknown'],
    ['3530111333300000', 'unknown'],
  ])('%s is %s', (number, brand) => {
    expect(cardBrandOf(number)).toBe(brand);
  });
});

describe('card expiry', () => {
  it('is valid through the last millisecond of its month (UTC)', () => {
    expect(cardExpiresAt('1226')?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(cardExpiresAt('0228')?.toISOString()).toBe('2028-03-01T00:00:00.000Z');
    expect(isCardExpired('0626', new Date('2026-06-30T23:59:59.999Z'))).toBe(false);
    expect(isCardExpired('0626', new Date('2026-07-01T00:00:00.000Z'))).toBe(true);
    expect(isCardExpired('0626', new Date('2026-06-01T00:00:00.000Z'))).toBe(false);
    expect(isCardExpired('0526', new Date('2026-06-01T00:00:00.000Z'))).toBe(true);
  });

  it('treats a malformed expiry as expired', () => {
    for (const expiry of ['1326', '0026', '126', '12/26', '']) {
      expect(cardExpiresAt(expiry)).toBeNull();
      expect(isCardExpired(expiry, new Date('2000-01-01T00:00:00Z'))).toBe(true);
    }
  });
});
