import type { MiddlewareHandler } from 'hono';
import { ApiError, type ApiErrorInit } from '../errors/api-error';
import { hasBody } from './body';

/** A NUL, or a UTF-16 surrogate without its pair: text PostgreSQL refuses to store (and no client means to send). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL character is exactly what this guard looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Where a body that was not valid UTF-8 was decoded anyway, each bad byte sequence became U+FFFD. */
const REPLACED = /\ufffd/;

const problemOf = (value: string) =>
  UNSTORABLE.exec(value)?.[0] === '\u0000' ? 'must not contain a NUL character' : 'must be valid Unicode text';

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** Deeper than any body of this API; a deeper document is refused before anything else walks it. */
export const MAX_JSON_DEPTH = 32;

/**
 * Every string (and object key) of a JSON value that cannot be stored, with its JSON pointer; or, for a value
 * nested deeper than MAX_JSON_DEPTH, that one problem. Walked with a stack of its own: no depth can overflow it.
 */
export function unstorableStrings(root: unknown, { replaced = false } = {}): ApiErrorInit[] {
  const bad = (text: string) => UNSTORABLE.test(text) || (replaced && REPLACED.test(text));
  const problems: ApiErrorInit[] = [];
  const pending: { value: unknown; pointer: string; depth: number }[] = [{ value: root, pointer: '', depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, pointer, depth } = next;
    if (typeof value === 'string') {
      if (bad(value)) {
        problems.push({
          status: 400,
          code: 'invalid_field',
          detail: `${pointer || 'the body'} ${problemOf(value)}`,
          pointer,
        });
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth === MAX_JSON_DEPTH) {
      const detail = `The body nests deeper than ${MAX_JSON_DEPTH} levels`;
      return [{ status: 400, code: 'body_too_deep', detail, pointer }];
    }
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value);
    // Pushed last to first, so values are visited in document order.
    for (const [key, item] of entries.reverse()) {
      const at = `${pointer}/${escapePointer(key)}`;
      if (!Array.isArray(value) && bad(key)) {
        problems.push({ status: 400, code: 'invalid_field', detail: `a field name ${problemOf(key)}`, pointer: at });
      }
      pending.push({ value: item, pointer: at, depth: depth + 1 });
    }
  }
  return problems;
}

/** Every query-string parameter (name or value) that cannot be stored, with its name as `source.parameter`. */
export function unstorableParameters(queries: Record<string, string[]>): ApiErrorInit[] {
  const problems: ApiErrorInit[] = [];
  for (const [name, values] of Object.entries(queries)) {
    const bad = [name, ...values].find((text) => UNSTORABLE.test(text));
    if (bad !== undefined) {
      const detail = `the query parameter ${JSON.stringify(name)} ${problemOf(bad)}`;
      problems.push({ status: 400, code: 'invalid_field', detail, parameter: name });
    }
  }
  return problems;
}

/**
 * 400 for text that cannot be stored, before any route runs: a NUL, an unpaired surrogate or bytes that are not
 * UTF-8 anywhere in a JSON body (every such field listed with its pointer) or in a query-string parameter (listed by its name), a body
 * nested absurdly deep, or a NUL in the path. Malformed JSON is left to the validator.
 */
export const textGuard = (): MiddlewareHandler => async (c, next) => {
  if (c.req.path.includes('\u0000')) {
    throw new ApiError({ status: 400, code: 'invalid_path', detail: 'The path must not contain a NUL character' });
  }
  const parameters = unstorableParameters(c.req.queries());
  if (parameters.length > 0) throw ApiError.many(parameters);
  if ((c.req.header('content-type') ?? '').toLowerCase().includes('json') && hasBody(c.req.raw)) {
    const { text, replaced } = decodeUtf8(await c.req.arrayBuffer());
    // The validator and the routes read the body as this text (`c.req.text()`), decoded once.
    const cache = c.req.bodyCache as { text?: Promise<string>; json?: Promise<unknown> };
    cache.text = Promise.resolve(text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      if (replaced) throw new ApiError(notUtf8);
      return next();
    }
    // …and as this value (`c.req.json()`: the validator, and a route that keeps the raw body), parsed once. Nothing
    // changes it: zod's output is a value of its own.
    cache.json = Promise.resolve(parsed);
    const problems = replaced || mayHoldUnstorable(text) ? unstorableStrings(parsed, { replaced }) : [];
    if (problems.length > 0) throw ApiError.many(problems);
    if (replaced) throw new ApiError(notUtf8);
  }
  await next();
};

/**
 * Whether JSON text strictly decoded from UTF-8 may hold what `unstorableStrings` finds; when not, the walk is
 * skipped. A NUL or a lone surrogate can only be written as a `\u` escape: strict decoding yields no lone surrogate,
 * and JSON.parse refuses a raw NUL. Nesting deeper than MAX_JSON_DEPTH takes more than that many brackets (counted
 * in strings too: a body with many is walked, which finds out).
 */
export function mayHoldUnstorable(text: string): boolean {
  if (text.includes('\\u')) return true;
  return bracketsAtLeast(text, MAX_JSON_DEPTH + 1);
}

/**
 * Whether `text` holds at least `count` opening brackets (`{` and `[`, in strings too): what bounds how deep it can
 * nest. Counted by `indexOf`, which skips to each bracket (a payment's body has about ten): a loop over every
 * character took about 3 ns a character, half as long as parsing the text.
 */
export function bracketsAtLeast(text: string, count: number): boolean {
  let brackets = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at >= 0; at = text.indexOf(bracket, at + 1)) {
      if (++brackets >= count) return true;
    }
  }
  return false;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

/**
 * The body as text. A body that is not valid UTF-8 (a Latin-1 `é`, say) is decoded anyway, each bad sequence as
 * U+FFFD, so the guard can point at the fields that hold one; it is refused, never stored with the replacement.
 */
function decodeUtf8(bytes: ArrayBuffer): { text: string; replaced: boolean } {
  try {
    return { text: strictUtf8.decode(bytes), replaced: false };
  } catch {
    return { text: lenientUtf8.decode(bytes), replaced: true };
  }
}

/** A body whose bad bytes sit outside any string (or break its JSON): refused as a whole. */
const notUtf8: ApiErrorInit = {
  status: 400,
  code: 'invalid_field',
  detail: 'The body must be UTF-8 text',
  pointer: '',
};
