import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zodToApiError } from './on-error';

const schema = z.object({
  data: z.object({
    type: z.literal('things'),
    attributes: z.object({
      kind: z.enum(['a', 'b']),
      name: z.string(),
      code: z
        .string()
        .refine((value) => value.length === 3, { params: { code: 'invalid_code' }, message: 'three chars' }),
    }),
  }),
});

const errorsOf = (input: unknown) => {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a failure');
  return zodToApiError(result.error, 'json', input).toObjects();
};

describe('zodToApiError', () => {
  it('lists every field with its pointer, missing ones as missing_field whatever their schema', () => {
    const errors = errorsOf({ data: { type: 'other', attributes: { code: 'toolong' } } });
    expect(errors.map((error) => [error.code, 'source' in error ? error.source : undefined])).toEqual([
      ['invalid_field', { pointer: '/data/type' }],
      ['missing_field', { pointer: '/data/attributes/kind' }],
      ['missing_field', { pointer: '/data/attributes/name' }],
      ['invalid_code', { pointer: '/data/attributes/code' }],
    ]);
    expect(errors[1]!.detail).toBe('kind is required');
    expect(errors.every((error) => error.status === '400' && error.title === 'Bad Request')).toBe(true);
  });

  it('reports a wrong enum value as invalid_field', () => {
    const errors = errorsOf({ data: { type: 'things', attributes: { kind: 'c', name: 'x', code: 'abc' } } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'invalid_field', source: { pointer: '/data/attributes/kind' } });
  });

  it('names query parameters with source.parameter', () => {
    const result = z.object({ limit: z.string().regex(/^\d+$/) }).safeParse({ limit: 'x' });
    if (result.success) throw new Error('expected a failure');
    expect(zodToApiError(result.error, 'query', { limit: 'x' }).toObjects()[0]).toMatchObject({
      source: { parameter: 'limit' },
    });
  });
});
