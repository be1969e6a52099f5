import { z } from '@hono/zod-openapi';
import { inStorableYear } from './common';

// Query parameters the lists share: dates and instants, cents, and checked text (an empty value is no filter).

/** An optional date or date-time query parameter (`startDate`, `endDate`), as a Date. */
export const isoDateParam = (name: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const wellFormed =
        z.iso.datetime({ offset: true }).safeParse(value).success || z.iso.date().safeParse(value).success;
      const date = new Date(value);
      if (!wellFormed || !inStorableYear(date)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an ISO 8601 date or date-time from year 1 on` });
        return z.NEVER;
      }
      return date;
    })
    .openapi({ type: 'string', format: 'date-time', param: { name, in: 'query' } });

/** An optional ISO 8601 instant query parameter (`createdGte`, `createdLte`): a date-time with its offset, as a Date. */
export const instantParam = (name: string, description: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const instant = new Date(value);
      if (!z.iso.datetime({ offset: true }).safeParse(value).success || !inStorableYear(instant)) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be an ISO 8601 instant: a date-time with its offset, like 2026-11-29T00:00:00Z`,
        });
        return z.NEVER;
      }
      return instant;
    })
    .openapi({
      type: 'string',
      format: 'date-time',
      param: { name, in: 'query' },
      description,
      example: '2026-11-29T00:00:00Z',
    });

/** An optional query parameter of integer cents (`amountGte`, `amountLte`), as a number. */
export const centsParam = (name: string, description: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
        ctx.addIssue({ code: 'custom', message: `${name} must be integer cents, a string of digits` });
        return z.NEVER;
      }
      return Number(value);
    })
    .openapi({ type: 'string', pattern: '^\\d+$', param: { name, in: 'query' }, description, example: '1000' });

/** An optional text query parameter checked by `valid` (`message` when it is not); an empty value is no filter. */
export const checkedParam = (valid: (value: string) => boolean, message: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      if (!valid(value)) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return value;
    });
