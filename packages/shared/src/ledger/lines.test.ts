import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeFees, maxSplitAmount } from '../money/fees';
import {
  captureLines,
  isLedgerAccount,
  type LedgerLine,
  ledgerAccounts,
  refundLines,
  reverseLines,
  secondSplitLines,
  settlementLines,
  unbalancedReason,
} from './lines';

const sum = (lines: LedgerLine[]) => lines.reduce((total, line) => total + line.amount, 0);
const pricing = { rateBasisPoints: 290, fixedCents: 30 };

describe('ledger account names', () => {
  it('names the accounts of docs/design.md', () => {
    expect(ledgerAccounts.pending('mer_1')).toBe('merchant:mer_1:pending');
    expect(ledgerAccounts.available('mer_1')).toBe('merchant:mer_1:available');
    expect(ledgerAccounts.fees).toBe('operator:fees');
    expect(ledgerAccounts.external('card')).toBe('external:card');
    expect(ledgerAccounts.external('ach')).toBe('external:ach');
  });

  it('knows its own names and nothing else', () => {
    for (const name of ['merchant:mer_1:pending', 'merchant:mer_1:available', 'operator:fees', 'external:ach']) {
      expect(isLedgerAccount(name)).toBe(true);
    }
    for (const name of ['merchant:mer_1:other', 'merchant::pending', 'operator:cash', 'external:wire', '']) {
      expect(isLedgerAccount(name)).toBe(false);
    }
  });
});

describe('captureLines', () => {
  it('splits a card capture into external, net, fees', () => {
    // 10000 cents: 2.9 % = 290, + 30 = 320 fees, net 9680.
    expect(captureLines({ rail: 'card', merchantId: 'mer_a', gross: 10_000, grossMinusNet: 320 })).toEqual([
      { ledgerAccount: 'external:card', amount: -10_000 },
      { ledgerAccount: 'merchant:mer_a:pending', amount: 9_680 },
      { ledgerAccount: 'operator:fees', amount: 320 },
    ]);
  });

  it('gives the split merchant its share without fee, taken from the primary net', () => {
    const lines = captureLines({
      rail: 'card',
      merchantId: 'mer_a',
      gross: 10_000,
      grossMinusNet: 320,
      split: { merchantId: 'mer_b', amount: 1_000 },
    });
    expect(lines).toEqual([
      { ledgerAccount: 'external:card', amount: -10_000 },
      { ledgerAccount: 'merchant:mer_a:pending', amount: 8_680 },
      { ledgerAccount: 'merchant:mer_b:pending', amount: 1_000 },
      { ledgerAccount: 'operator:fees', amount: 320 },
    ]);
    expect(sum(lines)).toBe(0);
  });

  it('uses the ACH external account for ACH', () => {
    expect(captureLines({ rail: 'ach', merchantId: 'mer_a', gross: 5_000, grossMinusNet: 175 })[0]).toEqual({
      ledgerAccount: 'external:ach',
      amount: -5_000,
    });
  });

  it('allows a split that takes the whole net, and refuses one that takes more', () => {
    const lines = captureLines({
      rail: 'card',
      merchantId: 'mer_a',
      gross: 100,
      grossMinusNet: 33,
      split: { merchantId: 'mer_b', amount: 67 },
    });
    expect(lines[1]).toEqual({ ledgerAccount: 'merchant:mer_a:pending', amount: 0 });
    expect(() =>
      captureLines({
        rail: 'card',
        merchantId: 'mer_a',
        gross: 100,
        grossMinusNet: 33,
        split: { merchantId: 'mer_b', amount: 68 },
      }),
    ).toThrow(RangeError);
    expect(() => captureLines({ rail: 'card', merchantId: 'mer_a', gross: 10, grossMinusNet: 33 })).toThrow(RangeError);
    expect(() => captureLines({ rail: 'card', merchantId: 'mer_a', gross: 10.5, grossMinusNet: 3 })).toThrow(
      RangeError,
    );
  });
});

describe('reverseLines', () => {
  it('is the exact reversal, line by line', () => {
    const capture = captureLines({
      rail: 'card',
      merchantId: 'mer_a',
      gross: 10_000,
      grossMinusNet: 320,
      split: { merchantId: 'mer_b', amount: 1_000 },
    });
    const reversal = reverseLines(capture);
    expect(reversal).toEqual([
      { ledgerAccount: 'external:card', amount: 10_000 },
      { ledgerAccount: 'merchant:mer_a:pending', amount: -8_680 },
      { ledgerAccount: 'merchant:mer_b:pending', amount: -1_000 },
      { ledgerAccount: 'operator:fees', amount: -320 },
    ]);
    expect(reverseLines(reversal)).toEqual(capture);
    expect(Object.is(reverseLines([{ ledgerAccount: 'operator:fees', amount: 0 }])[0]!.amount, 0)).toBe(true);
  });
});

describe('other postings', () => {
  it('refund: merchant pays back the external account, fees stay', () => {
    expect(refundLines({ rail: 'card', merchantId: 'mer_a', amount: 500, bucket: 'available' })).toEqual([
      { ledgerAccount: 'merchant:mer_a:available', amount: -500 },
      { ledgerAccount: 'external:card', amount: 500 },
    ]);
  });

  it('second split: between two merchants only', () => {
    expect(
      secondSplitLines({ fromMerchantId: 'mer_a', toMerchantId: 'mer_c', amount: 700, bucket: 'pending' }),
    ).toEqual([
      { ledgerAccount: 'merchant:mer_a:pending', amount: -700 },
      { ledgerAccount: 'merchant:mer_c:pending', amount: 700 },
    ]);
  });

  it('settlement: pending to available', () => {
    expect(settlementLines({ merchantId: 'mer_a', amount: 9_680 })).toEqual([
      { ledgerAccount: 'merchant:mer_a:pending', amount: -9_680 },
      { ledgerAccount: 'merchant:mer_a:available', amount: 9_680 },
    ]);
  });

  it('moves a refund settling the other way: pending up, available down', () => {
    expect(settlementLines({ merchantId: 'mer_a', amount: -300 })).toEqual([
      { ledgerAccount: 'merchant:mer_a:pending', amount: 300 },
      { ledgerAccount: 'merchant:mer_a:available', amount: -300 },
    ]);
  });

  it('refuses negative or fractional amounts where they make no sense', () => {
    expect(() => refundLines({ rail: 'ach', merchantId: 'mer_a', amount: -1, bucket: 'pending' })).toThrow(RangeError);
    expect(() => settlementLines({ merchantId: 'mer_a', amount: 0.5 })).toThrow(RangeError);
  });
});

describe('unbalancedReason', () => {
  it('accepts a balanced posting', () => {
    expect(
      unbalancedReason([
        { ledgerAccount: 'external:card', amount: -5 },
        { ledgerAccount: 'operator:fees', amount: 5 },
      ]),
    ).toBeNull();
  });

  it('names what is wrong', () => {
    expect(unbalancedReason([])).toMatch(/at least one line/);
    expect(unbalancedReason([{ ledgerAccount: 'operator:fees', amount: 1 }])).toMatch(/sum to 1/);
    expect(
      unbalancedReason([
        { ledgerAccount: 'operator:fees', amount: 0.5 },
        { ledgerAccount: 'external:card', amount: -0.5 },
      ]),
    ).toMatch(/integer/);
    expect(unbalancedReason([{ ledgerAccount: 'operator:fees', amount: Number.NaN }])).toMatch(/integer/);
    expect(unbalancedReason([{ ledgerAccount: 'bank:cash', amount: 0 }])).toMatch(/unknown ledger account/);
  });

  it('does not lose precision on huge amounts', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(
      unbalancedReason([
        { ledgerAccount: 'operator:fees', amount: max },
        { ledgerAccount: 'operator:fees', amount: max },
        { ledgerAccount: 'external:card', amount: -max },
        { ledgerAccount: 'external:card', amount: -max + 1 },
      ]),
    ).toMatch(/sum to 1/);
  });
});

describe('ledger invariants (property)', () => {
  const capture = fc
    .record({
      rail: fc.constantFrom('card' as const, 'ach' as const),
      merchant: fc.integer({ min: 1, max: 5 }),
      splitMerchant: fc.integer({ min: 1, max: 5 }),
      gross: fc.integer({ min: 50, max: 100_000_000 }),
      splitFraction: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
      voided: fc.boolean(),
    })
    .map(({ rail, merchant, splitMerchant, gross, splitFraction, voided }) => {
      const { grossMinusNet } = computeFees({ amount: gross, ...pricing });
      const room = maxSplitAmount({ gross, grossMinusNet });
      const splitAmount = splitFraction === null || room < 1 ? null : Math.max(1, Math.floor(room * splitFraction));
      return {
        rail,
        merchantId: `mer_${merchant}`,
        gross,
        grossMinusNet,
        split: splitAmount === null ? null : { merchantId: `mer_s${splitMerchant}`, amount: splitAmount },
        voided,
      };
    });

  it('every posting sums to zero, and so does the whole ledger', () => {
    fc.assert(
      fc.property(fc.array(capture, { minLength: 1, maxLength: 30 }), (captures) => {
        const all: LedgerLine[] = [];
        for (const { voided, ...input } of captures) {
          const lines = captureLines(input);
          expect(unbalancedReason(lines)).toBeNull();
          expect(lines.every((line) => Number.isSafeInteger(line.amount))).toBe(true);
          all.push(...lines);
          if (voided) {
            const reversal = reverseLines(lines);
            expect(unbalancedReason(reversal)).toBeNull();
            all.push(...reversal);
          }
        }
        expect(sum(all)).toBe(0);
        // The operator earns exactly the fees of the captures that were not voided.
        const fees = all.filter((line) => line.ledgerAccount === 'operator:fees').reduce((t, l) => t + l.amount, 0);
        const expected = captures.filter((c) => !c.voided).reduce((t, c) => t + c.grossMinusNet, 0);
        expect(fees).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('a void leaves every ledger account where it was', () => {
    fc.assert(
      fc.property(capture, ({ voided: _voided, ...input }) => {
        const lines = captureLines(input);
        const balances = new Map<string, number>();
        for (const line of [...lines, ...reverseLines(lines)]) {
          balances.set(line.ledgerAccount, (balances.get(line.ledgerAccount) ?? 0) + line.amount);
        }
        expect([...balances.values()].every((balance) => balance === 0)).toBe(true);
      }),
    );
  });
});
