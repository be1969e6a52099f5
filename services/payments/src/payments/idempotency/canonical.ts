import { sha256Hex } from '@pps/shared/crypto';

/**
 * JSON with object keys sorted at every depth (arrays keep their order), so equal data give equal text. Written as
 * it goes, not as JSON.stringify of a sorted copy (the copy cost more than the writing, on every payment), and
 * byte for byte what that gave: a stored fingerprint must match the same data sent again after a deploy. A member
 * JSON.stringify leaves out (undefined, a function) is left out; in an array it is `null`.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      const item = value[index];
      text += `${index === 0 ? '' : ','}${omitted(item) ? 'null' : canonicalJson(item)}`;
    }
    return `${text}]`;
  }
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    let text = '';
    for (const key of sortedKeys(object)) {
      const item = object[key];
      if (!omitted(item)) text += `${text === '' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item)}`;
    }
    return `{${text}}`;
  }
  return JSON.stringify(value);
}

/**
 * Keys in the order the sorted copy had them: an object lists array-index keys (`"0"`, `"42"`) first, by number,
 * whatever order they were added in, so those come first, as `Object.keys` gives them; the others sorted.
 */
function sortedKeys(object: Record<string, unknown>): string[] {
  const keys = Object.keys(object);
  let indexes = 0;
  while (indexes < keys.length && isArrayIndex(keys[indexes] as string)) indexes++;
  if (indexes === 0) return keys.sort();
  return [...keys.slice(0, indexes), ...keys.slice(indexes).sort()];
}

const MAX_ARRAY_INDEX = 2 ** 32 - 2;
const isArrayIndex = (key: string) => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) <= MAX_ARRAY_INDEX;

const omitted = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/** The fingerprint of a request: sha256 of the canonical JSON of `data` without `requestId`. */
export function requestHash(data: unknown): string {
  const { requestId: _ignored, ...rest } = (data ?? {}) as Record<string, unknown>;
  return sha256Hex(canonicalJson(rest));
}
