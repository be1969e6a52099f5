import { stateMachine, type Transition } from './machine';

export const merchantStatuses = ['pending', 'active', 'suspended', 'closed'] as const;
export type MerchantStatus = (typeof merchantStatuses)[number];

export type MerchantEvent = 'approve' | 'suspend' | 'reinstate' | 'close';
export type MerchantTransition = Transition<MerchantStatus, MerchantEvent>;

/** Ops-driven status changes (docs/design.md); `closed` is final and anything not listed is a 422. */
export const merchantTransitions: readonly MerchantTransition[] = [
  { from: 'pending', to: 'active', event: 'approve' },
  { from: 'pending', to: 'closed', event: 'close' },
  { from: 'active', to: 'suspended', event: 'suspend' },
  { from: 'suspended', to: 'active', event: 'reinstate' },
  { from: 'active', to: 'closed', event: 'close' },
  { from: 'suspended', to: 'closed', event: 'close' },
];

const machine = stateMachine({ resource: 'merchant', statuses: merchantStatuses, transitions: merchantTransitions });

export const isMerchantStatus = machine.is;
export const canMerchantTransition = machine.can;
export const assertMerchantTransition = machine.assert;
