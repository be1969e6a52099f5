import { ApiError } from '../http/errors';

export const merchantStatuses = ['pending', 'active', 'suspended', 'closed'] as const;
export type MerchantStatus = (typeof merchantStatuses)[number];

export type MerchantEvent = 'approve' | 'suspend' | 'reinstate' | 'close';
export type MerchantTransition = { from: MerchantStatus; to: MerchantStatus; event: MerchantEvent };

/** Ops-driven status changes (DESIGN §5); `closed` is final and anything not listed is a 422. */
export const merchantTransitions: readonly MerchantTransition[] = [
  { from: 'pending', to: 'active', event: 'approve' },
  { from: 'pending', to: 'closed', event: 'close' },
  { from: 'active', to: 'suspended', event: 'suspend' },
  { from: 'suspended', to: 'active', event: 'reinstate' },
  { from: 'active', to: 'closed', event: 'close' },
  { from: 'suspended', to: 'closed', event: 'close' },
];

const legal = new Set(merchantTransitions.map(({ from, to }) => `${from}>${to}`));

export const isMerchantStatus = (value: string): value is MerchantStatus =>
  (merchantStatuses as readonly string[]).includes(value);

export const canMerchantTransition = (from: MerchantStatus, to: MerchantStatus): boolean => legal.has(`${from}>${to}`);

export function assertMerchantTransition(from: MerchantStatus, to: MerchantStatus): void {
  if (!canMerchantTransition(from, to)) {
    throw new ApiError({ status: 422, code: 'illegal_transition', detail: `A ${from} merchant cannot become ${to}` });
  }
}
