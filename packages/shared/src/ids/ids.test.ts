import { describe, expect, it } from 'vitest';
import { isId, newId } from './ids';

describe('ids', () => {
  it('are prefixed, unique and sort by creation time', () => {
    const a = newId('payment', 1_700_000_000_000);
    const b = newId('payment', 1_700_000_000_001);
    expect(a).toMatch(/^pay_[0-9a-z]{26}$/);
    expect(a < b).toBe(true);
    const many = new Set(Array.from({ length: 1000 }, () => newId('merchant')));
    expect(many.size).toBe(1000);
  });

  it('recognise their own form only', () => {
    expect(isId('token', newId('token'))).toBe(true);
    expect(isId('token', newId('payment'))).toBe(false);
    expect(isId('token', 'tok_short')).toBe(false);
    expect(isId('token', 'tok_ILOU0000000000000000000000')).toBe(false);
  });
});
