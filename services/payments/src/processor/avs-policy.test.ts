import { describe, expect, it } from 'vitest';
import { avsAccepted } from './avs-policy';
import type { AvsResult } from './processor';

describe('avsAccepted', () => {
  const results: AvsResult[] = ['Y', 'Z', 'A', 'N', 'U'];
  const accepted: Record<'Standard' | 'Strict' | 'Disabled', AvsResult[]> = {
    Standard: ['Y', 'Z'],
    Strict: ['Y'],
    Disabled: ['Y', 'Z', 'A', 'N', 'U'],
  };

  for (const mode of ['Standard', 'Strict', 'Disabled'] as const) {
    for (const result of results) {
      it(`${mode} with useAVS: ${result} is ${accepted[mode].includes(result) ? 'accepted' : 'refused'}`, () => {
        expect(avsAccepted(result, mode, true)).toBe(accepted[mode].includes(result));
      });
      it(`${mode} without useAVS: ${result} is accepted`, () => {
        expect(avsAccepted(result, mode, false)).toBe(true);
      });
    }
  }
});
