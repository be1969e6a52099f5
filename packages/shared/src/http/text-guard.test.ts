import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, mayHoldUnstorable, unstorableStrings } from './text-guard';

/** Nested `depth` levels: objects and arrays in turn around a string. */
const nested = (depth: number, leaf: unknown): unknown =>
  depth === 0 ? leaf : depth % 2 ? { a: nested(depth - 1, leaf) } : [nested(depth - 1, leaf)];

describe('mayHoldUnstorable: the walk is skipped only where it would find nothing', () => {
  it('any JSON value whose text it clears has no unstorable string and no excess depth', () => {
    const text = fc.string({ unit: 'binary', maxLength: 12 });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        text,
        fc.integer(),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(text, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: MAX_JSON_DEPTH + 3 }), (body, depth) => {
        const document = nested(depth, body);
        if (!mayHoldUnstorable(JSON.stringify(document))) expect(unstorableStrings(document)).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('sends a NUL, a lone surrogate and a body too deep to the walk, and clears a payment body', () => {
    expect(mayHoldUnstorable(JSON.stringify({ invoice: 'INV\u0000' }))).toBe(true);
    expect(mayHoldUnstorable(JSON.stringify({ invoice: '\ud800' }))).toBe(true);
    expect(mayHoldUnstorable(JSON.stringify(nested(MAX_JSON_DEPTH + 1, 'x')))).toBe(true);
    const payment = {
      data: {
        type: 'payments',
        requestId: '0b8e3c52-6c1f-4f7e-9d7e-6f0a4c2b9e11',
        attributes: { merchantId: 'mer_01', tokenId: 'tok_01', transaction: { amount: '1999', invoice: 'é 🎉' } },
      },
    };
    expect(mayHoldUnstorable(JSON.stringify(payment))).toBe(false);
  });
});
