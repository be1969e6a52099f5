import { stateMachine, type Transition } from './machine';

export const disputeStatuses = ['needs_response', 'under_review', 'won', 'lost'] as const;
export type DisputeStatus = (typeof disputeStatuses)[number];

/** An inquiry moves no money (the bank asks first); a chargeback takes the money back at once. */
export const disputePhases = ['inquiry', 'chargeback'] as const;
export type DisputePhase = (typeof disputePhases)[number];

/** The cardholder's reason, as the networks group their reason codes (Stripe's names). */
export const disputeReasons = [
  'fraudulent',
  'product_not_received',
  'duplicate',
  'subscription_canceled',
  'credit_not_processed',
  'general',
] as const;
export type DisputeReason = (typeof disputeReasons)[number];

export type DisputeEvent = 'submit' | 'accept' | 'expire' | 'win' | 'lose';
export type DisputeTransition = Transition<DisputeStatus, DisputeEvent>;

/**
 * Every legal dispute status change (docs/design.md, Disputes): a dispute opens `needs_response`; the merchant
 * submits evidence (`under_review`) or accepts it, or lets `dueBy` pass (`lost` either way); the bank decides one
 * under review, `won` or `lost`. Both are final.
 */
export const disputeTransitions: readonly DisputeTransition[] = [
  { from: 'needs_response', to: 'under_review', event: 'submit' },
  { from: 'needs_response', to: 'lost', event: 'accept' },
  { from: 'needs_response', to: 'lost', event: 'expire' },
  { from: 'under_review', to: 'won', event: 'win' },
  { from: 'under_review', to: 'lost', event: 'lose' },
];

export const openDisputeStatuses: readonly DisputeStatus[] = ['needs_response', 'under_review'];

const machine = stateMachine({ resource: 'dispute', statuses: disputeStatuses, transitions: disputeTransitions });

export const isDisputeStatus = machine.is;
export const canTransitionDispute = machine.can;
export const assertDisputeTransition = machine.assert;
