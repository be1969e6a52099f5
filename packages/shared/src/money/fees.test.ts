import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeFees, formatRate, maxSplitAmount, netOf, percentageOf } from './fees';

const standard = { rateBasisPoints: 290, fixedCents: 30 };
const amounts = fc.integer({ min: 50, max: 100_000_000 });
const basisPoints = fc.integer({ min: 0, max: 10_000 });

describe('computeFees', () => {
  it('charges round_half_up(amount × rate) + the fixed fee', () => {
    expect(computeFees({ amount: 1000, ...standard })).toEqual({
      gross: 1000,
      grossMinusNet: 59,
      fee: 30,
      rate: '2.9',
    });
    // 1.45 rounds down, 49.996 rounds up.
    expect(computeFees({ amount: 50, ...standard }).grossMinusNet).toBe(31);
    expect(computeFees({ amount: 1724, ...standard }).grossMinusNet).toBe(80);
    expect(computeFees({ amount: 100_000_000, ...standard }).grossMinusNet).toBe(2_900_030);
  });

  it('rounds an exact half up', () => {
    expect(percentageOf(50, 100)).toBe(1); // 0.5
    expect(percentageOf(150, 100)).toBe(2); // 1.5
    expect(percentageOf(2500, 290)).toBe(73); // 72.5
    expect(percentageOf(49, 100)).toBe(0); // 0.49
    expect(percentageOf(51, 100)).toBe(1); // 0.51
  });

  it('uses the pricing it is given', () => {
    expect(computeFees({ amount: 1000, rateBasisPoints: 0, fixedCents: 0 })).toEqual({
      gross: 1000,
      grossMinusNet: 0,
      fee: 0,
      rate: '0',
    });
    expect(computeFees({ amount: 1000, rateBasisPoints: 275, fixedCents: 25 }).grossMinusNet).toBe(53); // 27.5 → 28
  });

  it('refuses negative or fractional inputs', () => {
    expect(() => computeFees({ amount: -1, ...standard })).toThrow(RangeError);
    expect(() => computeFees({ amount: 10.5, ...standard })).toThrow(RangeError);
    expect(() => computeFees({ amount: 100, rateBasisPoints: -1, fixedCents: 30 })).toThrow(RangeError);
    expect(() => computeFees({ amount: 100, rateBasisPoints: 290, fixedCents: 0.5 })).toThrow(RangeError);
  });

  it('is exactly half-up rounding for every amount and rate (checked in integers)', () => {
    fc.assert(
      fc.property(amounts, basisPoints, (amount, bp) => {
        const rounded = BigInt(percentageOf(amount, bp));
        const twice = 2n * BigInt(amount) * BigInt(bp); // 2 × exact value × 10000
        // rounded − 1/2 ≤ exact < rounded + 1/2, scaled by 20000
        expect(20_000n * rounded - 10_000n <= twice).toBe(true);
        expect(twice < 20_000n * rounded + 10_000n).toBe(true);
      }),
    );
  });

  it('agrees with the float formula wherever the float is exact (amount × bp ≤ 1e12 < 2^53)', () => {
    fc.assert(
      fc.property(amounts, basisPoints, (amount, bp) => {
        expect(percentageOf(amount, bp)).toBe(Math.floor((amount * bp * 2 + 10_000) / 20_000));
      }),
    );
  });

  it('never produces negative fees, and fees grow with the amount', () => {
    fc.assert(
      fc.property(amounts, basisPoints, fc.nat(10_000), (amount, bp, fixed) => {
        const fees = computeFees({ amount, rateBasisPoints: bp, fixedCents: fixed });
        expect(fees.grossMinusNet).toBeGreaterThanOrEqual(fixed);
        expect(fees.fee).toBe(fixed);
        expect(
          computeFees({ amount: amount + 1, rateBasisPoints: bp, fixedCents: fixed }).grossMinusNet,
        ).toBeGreaterThanOrEqual(fees.grossMinusNet);
      }),
    );
  });
});

describe('formatRate', () => {
  it.each([
    [290, '2.9'],
    [300, '3'],
    [275, '2.75'],
    [5, '0.05'],
    [50, '0.5'],
    [0, '0'],
    [10_000, '100'],
    [1_001, '10.01'],
  ])('%i bp → %s', (bp, rate) => {
    expect(formatRate(bp)).toBe(rate);
  });

  it('is the shortest decimal of basis points over 100', () => {
    fc.assert(
      fc.property(basisPoints, (bp) => {
        expect(formatRate(bp)).toBe(String(bp / 100));
      }),
    );
  });
});

describe('netOf', () => {
  it('is gross minus fees minus splits', () => {
    expect(netOf({ gross: 1000, grossMinusNet: 59 })).toBe(941);
    expect(netOf({ gross: 1000, grossMinusNet: 59, splits: 100 })).toBe(841);
    expect(netOf({ gross: 1000, grossMinusNet: 59, splits: [100, 41] })).toBe(800);
    expect(netOf({ gross: 1000, grossMinusNet: 59, splits: 941 })).toBe(0);
  });

  it('refuses a split that would make the net negative', () => {
    expect(maxSplitAmount({ gross: 1000, grossMinusNet: 59 })).toBe(941);
    expect(() => netOf({ gross: 1000, grossMinusNet: 59, splits: 942 })).toThrow(RangeError);
    expect(() => netOf({ gross: 1000, grossMinusNet: 59, splits: -1 })).toThrow(RangeError);
  });

  it('balances for every amount and every allowed split: net + grossMinusNet + split = gross, net ≥ 0', () => {
    const cases = amounts.chain((amount) => {
      const fees = computeFees({ amount, ...standard });
      return fc.tuple(fc.constant(fees), fc.integer({ min: 0, max: maxSplitAmount(fees) }));
    });
    fc.assert(
      fc.property(cases, ([fees, split]) => {
        const net = netOf({ gross: fees.gross, grossMinusNet: fees.grossMinusNet, splits: split });
        expect(net).toBeGreaterThanOrEqual(0);
        expect(net + fees.grossMinusNet + split).toBe(fees.gross);
      }),
    );
  });

  it('the minimum amount always leaves room for the fees under the default pricing', () => {
    expect(maxSplitAmount(computeFees({ amount: 50, ...standard }))).toBe(19);
  });
});
