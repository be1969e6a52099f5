import { hmacSha256, safeEqual } from '../crypto';
import { ApiError } from '../errors/api-error';

/** What the gateway vouches for on every call it forwards to a service. */
export type CallerContext = {
  accountId: string;
  appId: string;
  /** The account's sandbox clock offset in seconds. */
  clockOffsetSeconds: number;
  requestId: string;
};

export const INTERNAL_HEADERS = {
  account: 'x-pps-account',
  app: 'x-pps-app',
  clockOffset: 'x-pps-clock-offset',
  requestId: 'x-request-id',
  timestamp: 'x-pps-timestamp',
  signature: 'x-pps-signature',
} as const;

export const INTERNAL_SIGNATURE_MAX_AGE_MS = 60_000;

const canonical = (ctx: CallerContext, method: string, path: string, timestamp: string) =>
  [timestamp, method.toUpperCase(), path, ctx.accountId, ctx.appId, String(ctx.clockOffsetSeconds), ctx.requestId].join(
    '\n',
  );

/** Headers the gateway adds to a forwarded request: the context and an HMAC-SHA256 over it and a timestamp. */
export function signInternal(
  secret: string,
  ctx: CallerContext,
  method: string,
  path: string,
  now = Date.now(),
): Record<string, string> {
  const timestamp = String(now);
  return {
    [INTERNAL_HEADERS.account]: ctx.accountId,
    [INTERNAL_HEADERS.app]: ctx.appId,
    [INTERNAL_HEADERS.clockOffset]: String(ctx.clockOffsetSeconds),
    [INTERNAL_HEADERS.requestId]: ctx.requestId,
    [INTERNAL_HEADERS.timestamp]: timestamp,
    [INTERNAL_HEADERS.signature]: hmacSha256(secret, canonical(ctx, method, path, timestamp)).toString('base64url'),
  };
}

/** A service's check of the gateway's signature: missing, wrong or older than 60 s is a 401. */
export function verifyInternal(
  secret: string,
  headers: { get(name: string): string | null | undefined },
  method: string,
  path: string,
  now = Date.now(),
): CallerContext {
  const signature = headers.get(INTERNAL_HEADERS.signature);
  const timestamp = headers.get(INTERNAL_HEADERS.timestamp);
  const accountId = headers.get(INTERNAL_HEADERS.account);
  const appId = headers.get(INTERNAL_HEADERS.app);
  const offset = headers.get(INTERNAL_HEADERS.clockOffset);
  const requestId = headers.get(INTERNAL_HEADERS.requestId);
  if (!signature || !timestamp || !accountId || !appId || offset == null || !requestId) {
    throw refused('internal_signature_missing', 'This service is reached through the gateway only');
  }
  const age = now - Number(timestamp);
  if (!Number.isFinite(age) || Math.abs(age) > INTERNAL_SIGNATURE_MAX_AGE_MS) {
    throw refused('internal_signature_expired', 'The internal signature is older than 60 seconds');
  }
  const ctx: CallerContext = { accountId, appId, clockOffsetSeconds: Number(offset), requestId };
  const expected = hmacSha256(secret, canonical(ctx, method, path, timestamp)).toString('base64url');
  if (!Number.isFinite(ctx.clockOffsetSeconds) || !safeEqual(signature, expected)) {
    throw refused('internal_signature_invalid', 'The internal signature does not match');
  }
  return ctx;
}

/**
 * How the gateway hands a service in its own process the caller it vouches for: on the Request object itself. No
 * network sees that object and a symbol cannot be sent over one, so there is nothing to sign or verify (two
 * HMAC-SHA256 per call saved: docs/decisions.md, "Performance of the payment path"); a request that came over HTTP
 * never has it and is verified as ever.
 */
const IN_PROCESS_CALLER = Symbol('pps.inProcessCaller');

export function attachCaller<T extends object>(request: T, caller: CallerContext): T {
  Object.defineProperty(request, IN_PROCESS_CALLER, { value: caller });
  return request;
}

/** The caller a request carries: attached in this process, else the gateway's signature checked (401 without). */
export function callerOf(
  secret: string,
  request: Request,
  method: string,
  path: () => string,
  now = Date.now(),
): CallerContext {
  const attached = (request as { [IN_PROCESS_CALLER]?: CallerContext })[IN_PROCESS_CALLER];
  return attached ?? verifyInternal(secret, request.headers, method, path(), now);
}

/** Set on a service's refusal of the internal signature, so a gateway never relays the internal hop's error. */
export const INTERNAL_REFUSAL_HEADER = 'x-pps-internal-refusal';

const refused = (code: string, detail: string) =>
  new ApiError({ status: 401, code, detail, headers: { [INTERNAL_REFUSAL_HEADER]: '1' } });

/** The caller context of ops calls (`/admin/*` with ADMIN_TOKEN) forwarded to a service. */
export const OPERATOR_ACCOUNT_ID = 'operator';
export const isOperator = (ctx: CallerContext) => ctx.accountId === OPERATOR_ACCOUNT_ID;
