import { sha256Hex } from '@pps/shared/crypto';

/** JSON with object keys sorted at every depth (arrays keep their order), so equal data give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(object)
        .sort()
        .filter((key) => object[key] !== undefined)
        .map((key) => [key, sortKeys(object[key])]),
    );
  }
  return value;
}

/** The fingerprint of a request: sha256 of the canonical JSON of `data` without `requestId`. */
export function requestHash(data: unknown): string {
  const { requestId: _ignored, ...rest } = (data ?? {}) as Record<string, unknown>;
  return sha256Hex(canonicalJson(rest));
}
