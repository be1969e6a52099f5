import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error';
import { assertPayoutTransition, canTransitionPayout, isPayoutStatus } from './payout-states';

describe('payout states', () => {
  it('a pending payout ends paid or failed, and nothing else moves', () => {
    expect(canTransitionPayout('pending', 'paid')).toBe(true);
    expect(canTransitionPayout('pending', 'failed')).toBe(true);
    for (const [from, to] of [
      ['paid', 'failed'],
      ['failed', 'paid'],
      ['paid', 'pending'],
      ['failed', 'pending'],
      ['pending', 'pending'],
    ] as const) {
      expect(canTransitionPayout(from, to)).toBe(false);
      expect(() => assertPayoutTransition(from, to)).toThrow(ApiError);
    }
    expect(isPayoutStatus('paid')).toBe(true);
    expect(isPayoutStatus('in_transit')).toBe(false);
  });
});
