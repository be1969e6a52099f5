import { z } from '@hono/zod-openapi';
import type { Keyset, Place } from '../db/keyset';
import { ApiError } from './errors';

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

const cursorParam = (description: string) =>
  z
    .string()
    .optional()
    // An empty value is no cursor, as an empty filter is no filter.
    .transform((value) => (value ? value : undefined))
    .openapi({
      type: 'string',
      description: `${description} An id that is no item of this list is a 400 invalid_cursor.`,
    });

/**
 * `startingAfter` / `endingBefore`: an item id of the list, the page read from that item instead of counted from
 * the start, so a page costs the same at any depth (docs/api.md, Pagination). At most one; `keysetOf` reads them.
 */
export const cursorQuery = {
  startingAfter: cursorParam(
    'An id of an item of this list: the page holds the items after it (older), newest first. ' +
      '`offset` then skips that many more. Not with `endingBefore`.',
  ),
  endingBefore: cursorParam(
    'An id of an item of this list: the page holds the items just before it (newer), still newest first; ' +
      '`links.next` then goes on toward newer items. `offset` then skips that many more. Not with `startingAfter`.',
  ),
};

type CursorParameter = keyof typeof cursorQuery;

/** What a list is asked for a page: `paginationQuery` and `cursorQuery` as validated. */
export type PageQuery = { limit: number; offset: number; startingAfter?: string; endingBefore?: string };

/** 400 `invalid_field` at `endingBefore`: a page is read from one item, not two. */
const bothCursors = () =>
  new ApiError({
    status: 400,
    code: 'invalid_field',
    detail: 'startingAfter and endingBefore cannot be used together; give one',
    parameter: 'endingBefore',
  });

/** 400 `invalid_cursor`: the id is no item of this list (unknown, malformed, or another merchant's or account's). */
export const invalidCursor = (parameter: CursorParameter, id: string) =>
  new ApiError({
    status: 400,
    code: 'invalid_cursor',
    detail: `${parameter}: ${id} is not an item of this list`,
    parameter,
  });

/**
 * The keyset a page reads from: none without a cursor; with one, the place of the item it names, which `place`
 * finds within the list's scope (the merchant's, the account's, the endpoint's). Both cursors, or an id `place`
 * does not find, are 400s naming the parameter.
 */
export async function keysetOf(
  query: { startingAfter?: string; endingBefore?: string },
  place: (id: string) => Promise<Place | undefined>,
): Promise<Keyset | undefined> {
  const { startingAfter, endingBefore } = query;
  if (startingAfter === undefined && endingBefore === undefined) return undefined;
  if (startingAfter !== undefined && endingBefore !== undefined) throw bothCursors();
  const parameter: CursorParameter = startingAfter !== undefined ? 'startingAfter' : 'endingBefore';
  const id = startingAfter ?? endingBefore ?? '';
  const found = await place(id);
  if (!found) throw invalidCursor(parameter, id);
  return { ...found, toward: parameter === 'startingAfter' ? 'older' : 'newer' };
}
