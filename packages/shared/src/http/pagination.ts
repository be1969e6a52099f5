import { z } from '@hono/zod-openapi';

const intString = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an integer from ${min} to ${max}` });
        return z.NEVER;
      }
      return Number(value);
    })
    .openapi({ type: 'integer', minimum: min, maximum: max, default: fallback });

/** limit 1–100 (default 25), offset ≥ 0 (default 0); anything else is a 400 naming the parameter. */
export const paginationQuery = {
  limit: intString('limit', 1, 100, 25),
  offset: intString('offset', 0, Number.MAX_SAFE_INTEGER, 0),
};
