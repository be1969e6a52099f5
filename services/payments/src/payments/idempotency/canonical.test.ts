import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, requestHash } from './canonical';

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"y":0,"z":1}]},"b":1}',
    );
  });

  it('writes what JSON.stringify of a sorted copy wrote (fingerprints stored before this writer still match)', () => {
    const sortKeys = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(sortKeys);
      if (value !== null && typeof value === 'object') {
        const object = value as Record<string, unknown>;
        return Object.fromEntries(
          Object.keys(object)
            .sort()
            .filter((key) => object[key] !== undefined)
            .map((key) => [key, sortKeys(object[key])]),
        );
      }
      return value;
    };
    const withHoles = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue(),
        fc.constantFrom(undefined, -0, 1e21, '\u2028', '__proto__'),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(
          fc.oneof(
            fc.string(),
            fc.constantFrom('__proto__', 'toJSON', 'a', 'B', '0', '7', '10', '01', '4294967294', '4294967295'),
          ),
          tie('value'),
          {
            maxKeys: 4,
          },
        ),
      ),
    })).value;
    fc.assert(
      fc.property(fc.dictionary(fc.string(), withHoles), (object) => {
        expect(canonicalJson(object)).toBe(JSON.stringify(sortKeys(object)));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same text whatever the key order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(object));
      }),
    );
  });
});

describe('requestHash', () => {
  const data = { type: 'payments', attributes: { paymentType: 'tokenv3', transaction: { amount: '1000' } } };

  it('ignores requestId and key order', () => {
    const withId = { requestId: '1b4e28ba-2fa1-41d2-883f-0016d3cca427', attributes: data.attributes, type: 'payments' };
    expect(requestHash(withId)).toBe(requestHash(data));
    expect(requestHash(data)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with any value', () => {
    const other = { ...data, attributes: { ...data.attributes, transaction: { amount: '1001' } } };
    expect(requestHash(other)).not.toBe(requestHash(data));
  });
});
