import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, requestHash } from './canonical';

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"y":0,"z":1}]},"b":1}',
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
