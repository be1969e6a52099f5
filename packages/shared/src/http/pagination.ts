import { z } from '@hono/zod-openapi';
import type { Keyset, Place } from '../db/keyset';
import { ApiError } from '../errors/api-error';

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

/**
 * What a list says of a name it does not take but a caller may guess (another list's name for the same idea, a
 * field of its items): the name to use instead, or where that filter lives.
 */
export type ParameterHints = Record<string, string>;

/**
 * A list's query: its own filters, `paginationQuery` and `cursorQuery`, and nothing else. A name the list does not
 * take is a 400 `unknown_parameter` naming it, never a filter silently ignored (docs/api.md, Pagination); the detail
 * gives the hint for it, if the list has one, and the names the list takes. The names are checked before the values,
 * so a misspelt filter is named even when another value is wrong too.
 */
export function listQuery<Shape extends z.ZodRawShape>(filters: Shape, hints: ParameterHints = {}) {
  const shape = { ...filters, ...paginationQuery, ...cursorQuery };
  const known = Object.keys(shape);
  const takes = new Set(known);
  // `z.preprocess` in effect, spelt as a pipe the route's `query` accepts (the OpenAPI document reads its output).
  const names = z.transform((input: unknown, ctx) => {
    if (input === null || typeof input !== 'object') return input;
    for (const name of Object.keys(input)) {
      if (takes.has(name)) continue;
      const hint = Object.hasOwn(hints, name) ? ` (${hints[name]})` : '';
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `${name} is not a parameter of this list${hint}; it takes ${known.join(', ')}`,
        params: { code: 'unknown_parameter' },
        input: name,
      });
    }
    return input;
  });
  const query = names.pipe(z.object(shape));
  listParameterNames.set(query, known);
  return query;
}

/** The names each list query takes (`listQuery`), by its schema: what an older API version's requests are cut to. */
const listParameterNames = new WeakMap<object, readonly string[]>();

/** The query parameter names a route's `request.query` takes, when it is a list's (`listQuery`); else undefined. */
export const listParametersOf = (schema: unknown): readonly string[] | undefined =>
  typeof schema === 'object' && schema !== null ? listParameterNames.get(schema) : undefined;

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
