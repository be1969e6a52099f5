import { describe, expect, it } from 'vitest';
import { idTimeBound, isId, newId } from './ids';

describe('ids', () => {
  it('are prefixed, unique and sort by creation time', () => {
    const a = newId('payment', 1_700_000_000_000);
    const b = newId('payment', 1_700_000_000_001);
    expect(a).toMatch(/^pay_[0-9a-z]{26}$/);
    expect(a < b).toBe(true);
    const many = new Set(Array.from({ length: 1000 }, () => newId('merchant')));
    expect(many.size).toBe(1000);
  });

  it('made in the same millisecond, sort in the order they were made', () => {
    const sameMs = Array.from({ length: 500 }, () => newId('token', 1_700_000_000_000));
    expect([...sameMs].sort()).toEqual(sameMs);
    expect(new Set(sameMs).size).toBe(500);
    // 60 random bits after the counter: two ids of one millisecond differ beyond it.
    const tails = new Set(sameMs.map((id) => id.slice(-12)));
    expect(tails.size).toBe(500);
  });

  it('recognise their own form only', () => {
    expect(isId('token', newId('token'))).toBe(true);
    expect(isId('token', newId('payment'))).toBe(false);
    expect(isId('token', 'tok_short')).toBe(false);
    expect(isId('token', 'tok_ILOU0000000000000000000000')).toBe(false);
  });

  it('idTimeBound sorts after every id made before its instant and before every one made from it on', () => {
    const at = 1_700_000_000_000;
    const bound = idTimeBound('event', new Date(at));
    for (let i = 0; i < 200; i++) {
      expect(newId('event', at - 1) < bound).toBe(true);
      expect(newId('event', at) > bound).toBe(true);
      expect(newId('event', at + 1) > bound).toBe(true);
    }
  });
});
