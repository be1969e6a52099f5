/** Per-merchant pricing; the platform defaults (290 bp, 30 cents) come from config, never from here. */
export type Pricing = { rateBasisPoints: number; fixedCents: number };

/** The fee fields of a transaction, in integer cents except `rate`, the percentage as the API shows it. */
export type Fees = { gross: number; grossMinusNet: number; fee: number; rate: string };

const BASIS_POINTS_PER_UNIT = 10_000n;

function assertNonNegativeInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  }
}

/**
 * round_half_up(amount × basisPoints / 10000) in BigInt, so no input size can introduce float error:
 * floor((2·a·bp + 10000) / 20000) = floor(a·bp/10000 + 1/2), which is half-up rounding for non-negative values.
 */
export function percentageOf(amount: number, rateBasisPoints: number): number {
  assertNonNegativeInteger('amount', amount);
  assertNonNegativeInteger('rateBasisPoints', rateBasisPoints);
  const doubled = 2n * BigInt(amount) * BigInt(rateBasisPoints);
  return Number((doubled + BASIS_POINTS_PER_UNIT) / (2n * BASIS_POINTS_PER_UNIT));
}

/** Basis points as a percentage without trailing zeros: 290 → "2.9", 300 → "3", 275 → "2.75", 5 → "0.05". */
export function formatRate(rateBasisPoints: number): string {
  assertNonNegativeInteger('rateBasisPoints', rateBasisPoints);
  const whole = Math.floor(rateBasisPoints / 100);
  const fraction = String(rateBasisPoints % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

export function computeFees({ amount, rateBasisPoints, fixedCents }: { amount: number } & Pricing): Fees {
  assertNonNegativeInteger('fixedCents', fixedCents);
  return {
    gross: amount,
    grossMinusNet: percentageOf(amount, rateBasisPoints) + fixedCents,
    fee: fixedCents,
    rate: formatRate(rateBasisPoints),
  };
}

/** The most a split may take: the primary's net must not go negative (docs/design.md). */
export function maxSplitAmount({ gross, grossMinusNet }: Pick<Fees, 'gross' | 'grossMinusNet'>): number {
  return Math.max(0, gross - grossMinusNet);
}

/**
 * The primary merchant's net: gross − fees − split amounts. Validate splits against maxSplitAmount first;
 * a negative result here is a bug, not a client error, so it throws.
 */
export function netOf({
  gross,
  grossMinusNet,
  splits = [],
}: Pick<Fees, 'gross' | 'grossMinusNet'> & { splits?: number | readonly number[] }): number {
  const splitAmounts = typeof splits === 'number' ? [splits] : splits;
  assertNonNegativeInteger('gross', gross);
  assertNonNegativeInteger('grossMinusNet', grossMinusNet);
  for (const split of splitAmounts) assertNonNegativeInteger('split', split);
  const net = splitAmounts.reduce((rest, split) => rest - split, gross - grossMinusNet);
  if (net < 0) throw new RangeError(`net would be negative (${net}): fees and splits exceed the gross ${gross}`);
  return net;
}
