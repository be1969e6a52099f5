import type { AvsResult } from './processor';

/**
 * Whether a payment may go ahead with this AVS result: always when the client does not ask for AVS
 * (`useAVS` false) or the merchant's mode is Disabled; Standard needs the ZIP to match (Y, Z); Strict the
 * full address (Y). The merchant's rule, whichever processor answered.
 */
export function avsAccepted(result: AvsResult, mode: 'Standard' | 'Strict' | 'Disabled', useAVS: boolean): boolean {
  if (!useAVS || mode === 'Disabled') return true;
  if (mode === 'Strict') return result === 'Y';
  return result === 'Y' || result === 'Z';
}
