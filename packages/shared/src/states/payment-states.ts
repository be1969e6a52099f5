import { ApiError } from '../errors/api-error';
import { stateMachine, type Transition } from './machine';

export const paymentStatuses = [
  'requires_action',
  'authorized',
  'pending',
  'completed',
  'failed',
  'refunded',
  'voided',
  'partial_refund',
] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

export type PaymentEvent =
  | 'capture'
  | 'settle'
  | 'ach_return'
  | 'void'
  | 'refund'
  | 'authenticate'
  | 'authentication_fail'
  | 'abandon';
export type PaymentTransition = Transition<PaymentStatus, PaymentEvent>;

/**
 * Every legal status change (docs/design.md), served as data at GET /payments/states. `refund` covers refunds and
 * split refunds alike: the parent becomes `refunded` once they add up to the gross, `partial_refund` before.
 * A declined payment is created `failed`, which is not a transition. An authorization (`capture: false`) is
 * captured (`pending`, its money moving from then), or voided: cancelled by a full refund, or lapsed. A card payment
 * that waits for its cardholder's 3-D Secure challenge (`requires_action`) is authorized once they complete it
 * (`pending`, or `authorized` with `capture: false`), or declined by the issuer or by a failed challenge (`failed`),
 * or voided when nobody finishes the challenge in time (`voidReason` `authentication_abandoned`).
 */
export const paymentTransitions: readonly PaymentTransition[] = [
  { from: 'requires_action', to: 'pending', event: 'authenticate' },
  { from: 'requires_action', to: 'authorized', event: 'authenticate' },
  { from: 'requires_action', to: 'failed', event: 'authentication_fail' },
  { from: 'requires_action', to: 'voided', event: 'abandon' },
  { from: 'authorized', to: 'pending', event: 'capture' },
  { from: 'authorized', to: 'voided', event: 'void' },
  { from: 'pending', to: 'completed', event: 'settle' },
  { from: 'pending', to: 'failed', event: 'ach_return' },
  { from: 'pending', to: 'voided', event: 'void' },
  { from: 'pending', to: 'partial_refund', event: 'refund' },
  { from: 'pending', to: 'refunded', event: 'refund' },
  { from: 'completed', to: 'partial_refund', event: 'refund' },
  { from: 'completed', to: 'refunded', event: 'refund' },
  { from: 'partial_refund', to: 'partial_refund', event: 'refund' },
  { from: 'partial_refund', to: 'refunded', event: 'refund' },
];

/**
 * A new card or ACH payment between its phases: recorded, its processor's answer not yet (docs/design.md,
 * Idempotency and concurrency). Internal: never listed, never in the served machine; a retrieval reads `pending`.
 */
export const PROCESSING = 'processing';
/** What the `status` column holds: a served status, or `processing`. */
export type StoredPaymentStatus = PaymentStatus | typeof PROCESSING;
export type PaymentOutcomeEvent = 'authorize' | 'authorize_only' | 'decline' | 'require_action' | 'authenticate';

/**
 * The ways out of `processing`: the processor's outcome (phase 3, or recovery) makes the payment `pending`
 * (`authorized` when it was asked not to capture) or `failed`, or, when the issuer asks the cardholder first,
 * `requires_action`. One way in besides a new record's claim: a completed 3-D Secure challenge takes its payment
 * `processing` while the processor authorizes it. Not served at GET /payments/states.
 */
export const processingTransitions: readonly Transition<StoredPaymentStatus, PaymentOutcomeEvent>[] = [
  { from: PROCESSING, to: 'pending', event: 'authorize' },
  { from: PROCESSING, to: 'authorized', event: 'authorize_only' },
  { from: PROCESSING, to: 'failed', event: 'decline' },
  { from: PROCESSING, to: 'requires_action', event: 'require_action' },
  { from: 'requires_action', to: PROCESSING, event: 'authenticate' },
];

/** The status a client sees: `processing` reads `pending` (the payment is not decided yet). */
export const servedPaymentStatus = (status: StoredPaymentStatus): PaymentStatus =>
  status === PROCESSING ? 'pending' : status;

export const finalPaymentStatuses: readonly PaymentStatus[] = ['failed', 'voided', 'refunded'];

const machine = stateMachine({ resource: 'payment', statuses: paymentStatuses, transitions: paymentTransitions });

const stored = stateMachine<StoredPaymentStatus, PaymentEvent | PaymentOutcomeEvent>({
  resource: 'payment',
  statuses: [...paymentStatuses, PROCESSING],
  transitions: [...paymentTransitions, ...processingTransitions],
});

export const isPaymentStatus = machine.is;
/** Checks a status change of a stored record, `processing` included (the outcome of a new payment). */
export const assertStoredTransition = stored.assert;
export const canStoredTransition = stored.can;
export const isFinalPaymentStatus = (status: PaymentStatus): boolean => finalPaymentStatuses.includes(status);
export const canTransition = machine.can;
export const assertTransition = machine.assert;

/**
 * The status a payment has once settlement reaches it. Settling a payment that was already (partly) refunded
 * records `settledAt` and keeps its status; that is not a transition. Failed, voided or completed payments are
 * never settled.
 */
export function statusAfterSettlement(status: StoredPaymentStatus): PaymentStatus {
  // An authorization has no settlement date until it is captured, so no pass reaches it.
  if (status === 'pending') return 'completed';
  if (status === 'partial_refund' || status === 'refunded') return status;
  throw new ApiError({ status: 422, code: 'illegal_transition', detail: `A ${status} payment cannot be settled` });
}
