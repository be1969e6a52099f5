import type { MiddlewareHandler } from 'hono';
import { ApiError, type ApiErrorInit } from './errors';

/** A NUL, or a UTF-16 surrogate without its pair: text PostgreSQL refuses to store (and no client means to send). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL character is exactly what this guard looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const problemOf = (value: string) =>
  UNSTORABLE.exec(value)?.[0] === '\u0000' ? 'must not contain a NUL character' : 'must be valid Unicode text';

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** Every string (and object key) of a JSON value that cannot be stored, with its JSON pointer. */
export function unstorableStrings(value: unknown, pointer = ''): ApiErrorInit[] {
  if (typeof value === 'string') {
    return UNSTORABLE.test(value)
      ? [{ status: 400, code: 'invalid_field', detail: `${pointer || 'the body'} ${problemOf(value)}`, pointer }]
      : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => unstorableStrings(item, `${pointer}/${index}`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => {
      const at = `${pointer}/${escapePointer(key)}`;
      const keyProblem = UNSTORABLE.test(key)
        ? [{ status: 400, code: 'invalid_field', detail: `a field name ${problemOf(key)}`, pointer: at }]
        : [];
      return [...keyProblem, ...unstorableStrings(item, at)];
    });
  }
  return [];
}

/**
 * 400 for text that cannot be stored, before any route runs: a NUL or an unpaired surrogate anywhere in a JSON
 * body (every such field listed with its pointer), or a NUL in the path. Malformed JSON is left to the validator.
 */
export const textGuard = (): MiddlewareHandler => async (c, next) => {
  if (c.req.path.includes('\u0000')) {
    throw new ApiError({ status: 400, code: 'invalid_path', detail: 'The path must not contain a NUL character' });
  }
  if ((c.req.header('content-type') ?? '').toLowerCase().includes('json') && c.req.raw.body !== null) {
    let parsed: unknown;
    try {
      parsed = await c.req.json();
    } catch {
      return next();
    }
    const problems = unstorableStrings(parsed);
    if (problems.length > 0) throw ApiError.many(problems);
  }
  await next();
};
