import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error';
import {
  assertStoredTransition,
  assertTransition,
  canStoredTransition,
  canTransition,
  finalPaymentStatuses,
  isFinalPaymentStatus,
  isPaymentStatus,
  type PaymentStatus,
  paymentStatuses,
  paymentTransitions,
  processingTransitions,
  type StoredPaymentStatus,
  servedPaymentStatus,
  statusAfterSettlement,
} from './payment-states';

const legalPairs: [PaymentStatus, PaymentStatus][] = [
  ['requires_action', 'pending'],
  ['requires_action', 'authorized'],
  ['requires_action', 'failed'],
  ['requires_action', 'voided'],
  ['authorized', 'pending'],
  ['authorized', 'voided'],
  ['pending', 'completed'],
  ['pending', 'failed'],
  ['pending', 'voided'],
  ['pending', 'partial_refund'],
  ['pending', 'refunded'],
  ['completed', 'partial_refund'],
  ['completed', 'refunded'],
  ['partial_refund', 'partial_refund'],
  ['partial_refund', 'refunded'],
];
const isLegal = (from: PaymentStatus, to: PaymentStatus) => legalPairs.some(([f, t]) => f === from && t === to);
const allPairs = paymentStatuses.flatMap((from) => paymentStatuses.map((to) => [from, to] as const));
const illegalPairs = allPairs.filter(([from, to]) => !isLegal(from, to));

const thrown = (fn: () => void): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

describe('payment states', () => {
  it("has the six statuses of the spec's retrieval, `authorized`, its overview's seventh, and 3-D Secure's wait", () => {
    expect([...paymentStatuses].sort()).toEqual(
      [
        'authorized',
        'completed',
        'failed',
        'partial_refund',
        'pending',
        'refunded',
        'requires_action',
        'voided',
      ].sort(),
    );
    expect(isPaymentStatus('requires_action')).toBe(true);
    expect(isPaymentStatus('partial_refund')).toBe(true);
    expect(isPaymentStatus('authorized')).toBe(true);
    expect(isPaymentStatus('captured')).toBe(false);
  });

  it('serves exactly the legal transitions, each once, with its event', () => {
    expect(paymentTransitions.map(({ from, to }) => [from, to])).toEqual(legalPairs);
    expect(new Set(paymentTransitions.map(({ from, to }) => `${from}>${to}`)).size).toBe(paymentTransitions.length);
    expect(paymentTransitions).toContainEqual({ from: 'pending', to: 'completed', event: 'settle' });
    expect(paymentTransitions).toContainEqual({ from: 'pending', to: 'failed', event: 'ach_return' });
    expect(paymentTransitions).toContainEqual({ from: 'pending', to: 'voided', event: 'void' });
    expect(paymentTransitions).toContainEqual({ from: 'authorized', to: 'pending', event: 'capture' });
    expect(paymentTransitions).toContainEqual({ from: 'authorized', to: 'voided', event: 'void' });
    expect(paymentTransitions).toContainEqual({ from: 'requires_action', to: 'voided', event: 'abandon' });
    expect(paymentTransitions).toContainEqual({ from: 'requires_action', to: 'failed', event: 'authentication_fail' });
    expect(paymentTransitions.filter(({ event }) => event === 'refund')).toHaveLength(6);
    expect(JSON.parse(JSON.stringify(paymentTransitions))).toEqual(paymentTransitions);
  });

  it('checks all 64 pairs: 15 legal, 49 illegal', () => {
    expect(allPairs).toHaveLength(64);
    expect(illegalPairs).toHaveLength(49);
  });

  it.each(legalPairs)('allows %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it.each(illegalPairs)('refuses %s → %s with a 422 illegal_transition', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    const error = thrown(() => assertTransition(from, to));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 422,
      code: 'illegal_transition',
      detail: `A ${from} payment cannot become ${to}`,
    });
  });

  it('treats failed, voided and refunded as final: nothing leaves them', () => {
    for (const status of paymentStatuses) {
      const leaves = paymentTransitions.some(({ from }) => from === status);
      expect(isFinalPaymentStatus(status)).toBe(!leaves);
    }
    expect(paymentStatuses.filter(isFinalPaymentStatus)).toEqual(['failed', 'refunded', 'voided']);
  });

  it('reaches pending only by a capture or an authentication, authorized only by an authentication', () => {
    expect(paymentTransitions.filter(({ to }) => to === 'pending')).toEqual([
      { from: 'requires_action', to: 'pending', event: 'authenticate' },
      { from: 'authorized', to: 'pending', event: 'capture' },
    ]);
    expect(paymentTransitions.filter(({ to }) => to === 'authorized')).toEqual([
      { from: 'requires_action', to: 'authorized', event: 'authenticate' },
    ]);
    expect(paymentTransitions.some(({ to }) => to === 'requires_action')).toBe(false);
  });
});

describe('statusAfterSettlement', () => {
  it('completes a pending payment and keeps a refunded one as it is', () => {
    expect(statusAfterSettlement('pending')).toBe('completed');
    expect(statusAfterSettlement('partial_refund')).toBe('partial_refund');
    expect(statusAfterSettlement('refunded')).toBe('refunded');
  });

  it.each(['authorized', 'completed', 'failed', 'voided'] as const)('refuses to settle a %s payment', (status) => {
    expect(thrown(() => statusAfterSettlement(status))).toMatchObject({
      status: 422,
      code: 'illegal_transition',
      detail: `A ${status} payment cannot be settled`,
    });
  });
});

describe('processing (a new payment between its phases)', () => {
  const stored: StoredPaymentStatus[] = [...paymentStatuses, 'processing'];

  it('leads only to pending, authorized, failed or requires_action; only a completed challenge leads to it', () => {
    expect(processingTransitions).toEqual([
      { from: 'processing', to: 'pending', event: 'authorize' },
      { from: 'processing', to: 'authorized', event: 'authorize_only' },
      { from: 'processing', to: 'failed', event: 'decline' },
      { from: 'processing', to: 'requires_action', event: 'require_action' },
      { from: 'requires_action', to: 'processing', event: 'authenticate' },
    ]);
    const outcomes = ['pending', 'authorized', 'failed', 'requires_action'];
    for (const to of stored) expect(canStoredTransition('processing', to)).toBe(outcomes.includes(to));
    for (const from of stored) expect(canStoredTransition(from, 'processing')).toBe(from === 'requires_action');
    expect(thrown(() => assertStoredTransition('processing', 'voided'))).toBeInstanceOf(ApiError);
    expect(() => assertStoredTransition('processing', 'pending')).not.toThrow();
  });

  it('keeps the served machine as it was: the served statuses, transitions and final statuses never name it', () => {
    expect(isPaymentStatus('processing')).toBe(false);
    const named = paymentTransitions.flatMap(({ from, to }): string[] => [from, to]);
    expect(named).not.toContain('processing');
    expect(finalPaymentStatuses).not.toContain('processing');
    for (const from of paymentStatuses) {
      for (const to of paymentStatuses) expect(canStoredTransition(from, to)).toBe(canTransition(from, to));
    }
  });

  it('reads as pending; every other status reads as itself', () => {
    expect(servedPaymentStatus('processing')).toBe('pending');
    for (const status of paymentStatuses) expect(servedPaymentStatus(status)).toBe(status);
  });

  it('is never settled', () => {
    expect(thrown(() => statusAfterSettlement('processing'))).toMatchObject({ code: 'illegal_transition' });
  });
});
