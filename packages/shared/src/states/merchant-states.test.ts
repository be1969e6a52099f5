import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error';
import {
  assertMerchantTransition,
  canMerchantTransition,
  isMerchantStatus,
  type MerchantStatus,
  merchantStatuses,
  merchantTransitions,
} from './merchant-states';

const legalPairs: [MerchantStatus, MerchantStatus][] = [
  ['pending', 'active'],
  ['pending', 'closed'],
  ['active', 'suspended'],
  ['suspended', 'active'],
  ['active', 'closed'],
  ['suspended', 'closed'],
];
const isLegal = (from: MerchantStatus, to: MerchantStatus) => legalPairs.some(([f, t]) => f === from && t === to);
const allPairs = merchantStatuses.flatMap((from) => merchantStatuses.map((to) => [from, to] as const));
const illegalPairs = allPairs.filter(([from, to]) => !isLegal(from, to));

const thrown = (fn: () => void): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

describe('merchant states', () => {
  it('has the four statuses of the spec', () => {
    expect([...merchantStatuses].sort()).toEqual(['active', 'closed', 'pending', 'suspended']);
    expect(isMerchantStatus('suspended')).toBe(true);
    expect(isMerchantStatus('deleted')).toBe(false);
  });

  it('lists exactly the legal transitions, each once', () => {
    expect(merchantTransitions.map(({ from, to }) => [from, to])).toEqual(legalPairs);
    expect(new Set(merchantTransitions.map(({ from, to }) => `${from}>${to}`)).size).toBe(merchantTransitions.length);
    expect(allPairs).toHaveLength(16);
    expect(illegalPairs).toHaveLength(10);
  });

  it.each(legalPairs)('allows %s → %s', (from, to) => {
    expect(canMerchantTransition(from, to)).toBe(true);
    expect(() => assertMerchantTransition(from, to)).not.toThrow();
  });

  it.each(illegalPairs)('refuses %s → %s with a 422 illegal_transition', (from, to) => {
    expect(canMerchantTransition(from, to)).toBe(false);
    const error = thrown(() => assertMerchantTransition(from, to));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 422,
      code: 'illegal_transition',
      detail: `A ${from} merchant cannot become ${to}`,
    });
  });

  it('treats closed as final and never returns to pending', () => {
    expect(merchantTransitions.some(({ from }) => from === 'closed')).toBe(false);
    expect(merchantTransitions.some(({ to }) => to === 'pending')).toBe(false);
  });
});
