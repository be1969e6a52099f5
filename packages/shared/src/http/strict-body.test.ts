import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zodToApiError } from './on-error';
import { editDistance, nearestField, strictObject, unknownFieldDetail } from './strict-body';

describe('nearestField', () => {
  it.each([
    ['captrue', ['paymentType', 'capture', 'token'], 'capture'],
    ['intervall', ['interval', 'weeklyAnchor', 'monthlyAnchor', 'delayDays'], 'interval'],
    ['merchantID', ['merchantId', 'miscData'], 'merchantId'],
    ['Capture', ['capture'], 'capture'],
    ['ammount', ['amount', 'currency'], 'amount'],
    ['color', ['paymentType', 'capture'], undefined],
    ['id', ['to'], undefined],
  ])('%s among %j → %s', (name, taken, expected) => {
    expect(nearestField(name, taken)).toBe(expected);
  });

  it('says what the object takes when nothing is near', () => {
    expect(unknownFieldDetail('color', ['a', 'b'])).toBe('color is not a field of this object; it takes a, b');
  });
});

describe('editDistance', () => {
  it('is a metric-like count: zero only for equal strings, symmetric, at most the longer length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        const distance = editDistance(a, b);
        expect(distance === 0).toBe(a === b);
        expect(editDistance(b, a)).toBe(distance);
        expect(distance).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
    );
  });

  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('captrue', 'capture')).toBe(1);
  });
});

describe('zodToApiError of a strict object', () => {
  const schema = strictObject({
    data: strictObject({ kind: z.enum(['a', 'b', 'c']), capture: z.boolean().optional() }),
  });
  const errorsOf = (input: unknown) => {
    const result = schema.safeParse(input);
    if (result.success) throw new Error('expected a failure');
    return zodToApiError(result.error, 'json', input).toObjects();
  };

  it('gives each unknown member its own unknown_field at its pointer, with the near miss', () => {
    expect(errorsOf({ data: { kind: 'a', captrue: false, zzz: 1 }, meta: {} })).toEqual([
      {
        status: '400',
        code: 'unknown_field',
        title: 'Bad Request',
        detail: 'captrue is not a field of this object; did you mean capture?',
        source: { pointer: '/data/captrue' },
      },
      {
        status: '400',
        code: 'unknown_field',
        title: 'Bad Request',
        detail: 'zzz is not a field of this object; it takes kind, capture',
        source: { pointer: '/data/zzz' },
      },
      {
        status: '400',
        code: 'unknown_field',
        title: 'Bad Request',
        detail: 'meta is not a field of this object; it takes data',
        source: { pointer: '/meta' },
      },
    ]);
  });

  it('lists every value of an enum, quoted and spaced, never cut', () => {
    const [error] = errorsOf({ data: { kind: 'd' } });
    expect(error?.detail).toBe('kind: must be one of "a", "b", "c"');
  });
});
