import { stateMachine, type Transition } from './machine';

export const payoutStatuses = ['pending', 'paid', 'failed'] as const;
export type PayoutStatus = (typeof payoutStatuses)[number];

export type PayoutEvent = 'deposit' | 'return';
export type PayoutTransition = Transition<PayoutStatus, PayoutEvent>;

/**
 * Every legal payout status change (docs/design.md, Payouts): a payout is made `pending`, and the bank's answer on
 * its arrival date ends it, `paid` (the deposit arrived) or `failed` (the bank returned it). Both are final.
 */
export const payoutTransitions: readonly PayoutTransition[] = [
  { from: 'pending', to: 'paid', event: 'deposit' },
  { from: 'pending', to: 'failed', event: 'return' },
];

const machine = stateMachine({
  resource: 'payout',
  statuses: ['pending', 'paid', 'failed'] as const,
  transitions: payoutTransitions,
});

export const isPayoutStatus = machine.is;
export const canTransitionPayout = machine.can;
export const assertPayoutTransition = machine.assert;
