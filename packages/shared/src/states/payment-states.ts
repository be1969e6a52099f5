import { ApiError } from '../http/errors';
import { stateMachine, type Transition } from './machine';

export const paymentStatuses = ['pending', 'completed', 'failed', 'refunded', 'voided', 'partial_refund'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

export type PaymentEvent = 'settle' | 'ach_return' | 'void' | 'refund';
export type PaymentTransition = Transition<PaymentStatus, PaymentEvent>;

/**
 * Every legal status change (docs/design.md), served as data at GET /payments/states. `refund` covers refunds and
 * split refunds alike: the parent becomes `refunded` once they add up to the gross, `partial_refund` before.
 * A declined payment is created `failed`, which is not a transition.
 */
export const paymentTransitions: readonly PaymentTransition[] = [
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

export const finalPaymentStatuses: readonly PaymentStatus[] = ['failed', 'voided', 'refunded'];

const machine = stateMachine({ resource: 'payment', statuses: paymentStatuses, transitions: paymentTransitions });

export const isPaymentStatus = machine.is;
export const isFinalPaymentStatus = (status: PaymentStatus): boolean => finalPaymentStatuses.includes(status);
export const canTransition = machine.can;
export const assertTransition = machine.assert;

/**
 * The status a payment has once settlement reaches it. Settling a payment that was already (partly) refunded
 * records `settledAt` and keeps its status; that is not a transition. Failed, voided or completed payments are
 * never settled.
 */
export function statusAfterSettlement(status: PaymentStatus): PaymentStatus {
  if (status === 'pending') return 'completed';
  if (status === 'partial_refund' || status === 'refunded') return status;
  throw new ApiError({ status: 422, code: 'illegal_transition', detail: `A ${status} payment cannot be settled` });
}
