import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allRoutes } from '../contract';
import { strictObject } from '../http/strict-body';
import { membersOf, removeUnknownMembers } from './known-members';

const strip = (schema: unknown, value: unknown) => {
  const copy = structuredClone(value);
  const removed = removeUnknownMembers(membersOf(schema), copy);
  return { removed, value: copy };
};

describe('unknown members, by the schema', () => {
  const card = strictObject({
    kind: z.literal('card'),
    number: z.string(),
    extra: z.object({ note: z.string() }).optional(),
  });
  const bank = strictObject({ kind: z.literal('bank'), account: z.string() });
  const schema = strictObject({
    data: strictObject({
      type: z.literal('things'),
      attributes: strictObject({
        method: z.discriminatedUnion('kind', [card, bank]),
        items: z.array(strictObject({ sku: z.string() })).optional(),
        labels: z
          .record(z.string(), strictObject({ text: z.string() }))
          .nullable()
          .default(null),
        either: z.union([strictObject({ a: z.string() }), strictObject({ b: z.string() })]).optional(),
      }),
    }),
  });

  it('removes each member a strict object refuses, at every depth, and keeps the rest', () => {
    const { removed, value } = strip(schema, {
      data: {
        type: 'things',
        colour: 'red',
        attributes: {
          method: { kind: 'card', number: '1', account: 'x', extra: { note: 'n', loose: true } },
          items: [{ sku: 'a', size: 'L' }, { sku: 'b' }],
          labels: { first: { text: 't', shade: 1 } },
          either: { a: 'x', c: 'y' },
          tip: 5,
        },
      },
    });
    expect(removed).toBe(true);
    expect(value).toEqual({
      data: {
        type: 'things',
        attributes: {
          // The bank branch's `account` is not the card branch's: removed. The loose object's member stays.
          method: { kind: 'card', number: '1', extra: { note: 'n', loose: true } },
          items: [{ sku: 'a' }, { sku: 'b' }],
          labels: { first: { text: 't' } },
          // A union without a discriminator keeps what any branch takes.
          either: { a: 'x' },
        },
      },
    });
    expect(schema.safeParse(value).success).toBe(true);
  });

  it('leaves a body that has none as it is, and values of the wrong kind to the schema', () => {
    const body = { data: { type: 'things', attributes: { method: { kind: 'bank', account: '9' }, items: 'no' } } };
    expect(strip(schema, body)).toEqual({ removed: false, value: body });
  });

  it("leaves the contract's bodies with no unknown member, whatever was added to them", () => {
    const route = allRoutes.find((each) => each.method === 'post' && each.path === '/payments');
    const content = route?.request?.body?.content as Record<string, { schema: z.ZodType }> | undefined;
    const paymentSchema = content?.['application/json']?.schema as z.ZodType;
    const body = {
      data: {
        type: 'payments',
        extra: 1,
        attributes: {
          paymentType: 'tokenv3',
          merchantId: 'mer_1',
          colour: 'red',
          token: { tokenId: 'tok_1', holder: 'J', expiry: '1234', nickname: 'x' },
          transaction: { amount: '100', currency: 'USD', tip: '5' },
        },
      },
    };
    const { removed, value } = strip(paymentSchema, body);
    expect(removed).toBe(true);
    const issues = paymentSchema.safeParse(value).error?.issues ?? [];
    expect(issues.filter((issue) => issue.code === 'unrecognized_keys')).toEqual([]);
    expect(value).toMatchObject({
      data: { attributes: { token: { tokenId: 'tok_1' }, transaction: { amount: '100' } } },
    });
  });
});
