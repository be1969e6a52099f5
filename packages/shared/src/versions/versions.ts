/**
 * API versions (docs/api.md, Versions): dated, oldest first. The code is written for the newest only; each change
 * an existing client would notice is a module (`changes.ts`) that turns a newest-version request or answer into
 * the previous version's. An account is pinned to a version (`accounts.api_version`); the `PPS-Version` header asks
 * for another on one request; every answer says the version it was rendered in.
 */
export const API_VERSIONS = ['2026-11-21', '2026-11-29'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** What a new account is pinned to, and what a request without an account (or a pin) is rendered in. */
export const NEWEST_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1] as ApiVersion;

/** The header a client asks for a version with, and every answer names its version in (lower case, as Hono reads). */
export const VERSION_HEADER = 'pps-version';

export const isApiVersion = (value: unknown): value is ApiVersion =>
  typeof value === 'string' && (API_VERSIONS as readonly string[]).includes(value);

/** Whether `version` is older than `than`: dates compare as text. */
export const olderThan = (version: ApiVersion, than: ApiVersion) => version < than;
