import { getConnInfo } from '@hono/node-server/conninfo';
import type { Config } from '@pps/shared/config';
import { ApiError } from '@pps/shared/http';
import type { Logger } from '@pps/shared/logger';
import type { RedisClient } from '@pps/shared/queues';
import type { Context } from 'hono';
import { BurstyRateLimiter, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** A Redis answer slower than this fails open: a hung Redis never holds a request longer. */
const REDIS_DEADLINE_MS = 200;
/** While Redis fails, one request a second tries it again; the others proceed without a round trip. */
const RETRY_AFTER_FAILURE_MS = 1000;
/** The burst allowance (RATE_LIMIT_RPS more requests) refills once per this window. */
const BURST_WINDOW_SECONDS = 10;
const AUTH_FAILURE_WINDOW_SECONDS = 60;
/**
 * An address Redis last counted under AUTH_FAILURE_LIMIT is taken to be under it for this long, without asking again:
 * a client with good credentials costs no Redis round trip per request. Every failure this process counts brings the
 * address's count back from Redis; an address at the limit is always asked again.
 */
const UNDER_LIMIT_KNOWN_MS = 1000;
/** Addresses whose count this process remembers; past it, the longest-remembered is forgotten. */
const KNOWN_ADDRESSES = 10_000;
const ADDRESS_WINDOW_SECONDS = 60;

export type RateLimitStatus = 'ok' | 'failing open' | 'off';

type LimitConfig = Pick<
  Config,
  'RATE_LIMIT_RPS' | 'AUTH_FAILURE_LIMIT' | 'TRUST_PROXY' | 'QUEUE_PREFIX' | 'CHECKOUT_ADDRESS_LIMIT'
>;

export type RateLimits = {
  /** `off` without Redis or with both limits 0; `failing open` since a Redis call failed, until one succeeds. */
  status(): RateLimitStatus;
  /**
   * One authentication attempt from the client's address: 429 before `attempt` runs while the address is blocked;
   * a 401 thrown by `attempt` (or left in `c.error` when `attempt` is a Hono `next`) counts as one failure.
   */
  authAttempt<T>(c: Context, attempt: () => Promise<T>): Promise<T>;
  /** One request of an authenticated account: 429 over the limit, else `next` and RateLimit-* headers on its answer. */
  perAccount(c: Context, accountId: string, next: () => Promise<void>): Promise<void>;
  /** One request to a public checkout route from the client's address: 429 over CHECKOUT_ADDRESS_LIMIT a minute. */
  perAddress(c: Context): Promise<void>;
};

/** `Retry-After` and `RateLimit-Reset`: whole seconds, rounded up, at least 1. */
const secondsUntil = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

const limitHeaders = (limit: number, res: RateLimiterRes) => ({
  'RateLimit-Limit': String(limit),
  'RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
  'RateLimit-Reset': String(secondsUntil(res.msBeforeNext)),
});

/**
 * Headers added to the answer `next` left: on a copy, since a forwarded answer (a `fetch` Response) has immutable
 * headers, which `c.header` would try to change in place.
 */
function addHeaders(c: Context, extra: Record<string, string>) {
  const { body, status, statusText } = c.res;
  const headers = new Headers(c.res.headers);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  c.res = undefined;
  c.res = new Response(body, { status, statusText, headers });
}

const isAuthFailure = (error: unknown) => error instanceof ApiError && error.status === 401;

/** The socket's peer, or `unknown` when there is no socket (the app called in-process, as tests do). */
function socketAddress(c: Context): string {
  try {
    const address = getConnInfo(c).remote.address;
    return address ? address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '') : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The client's address: with TRUST_PROXY = n, the n-th X-Forwarded-For entry from the right (the address the
 * outermost trusted proxy saw); otherwise, or when the header has fewer entries, the socket's peer.
 */
export function clientAddress(c: Context, trustedProxies: number): string {
  if (trustedProxies > 0) {
    const forwarded = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    const entry = forwarded[forwarded.length - trustedProxies];
    if (entry) return entry;
  }
  return socketAddress(c);
}

/**
 * The gateway's limits, counted in Redis so every gateway process shares them (rate-limiter-flexible):
 * per account, RATE_LIMIT_RPS a second with a burst of as many again per 10 s; per client address,
 * AUTH_FAILURE_LIMIT failed authentications a minute. Redis down or slow: requests proceed (fail open).
 */
export function createRateLimits(deps: { config: LimitConfig; redis?: RedisClient; log: Logger }): RateLimits {
  const { config, redis, log } = deps;
  const rps = config.RATE_LIMIT_RPS;
  const authFailures = config.AUTH_FAILURE_LIMIT;
  // No hash tag (only queues have one): limit keys of many accounts spread over a Redis Cluster's slots.
  const prefix = `${config.QUEUE_PREFIX}:rl`;
  const limiter = (name: string, points: number, duration: number) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:${name}`,
      points,
      duration,
      // Not connected: rejected at once, never queued behind a reconnect.
      rejectIfRedisNotReady: true,
    });
  const perAccount =
    redis && rps > 0
      ? new BurstyRateLimiter(limiter('account', rps, 1), limiter('account-burst', rps, BURST_WINDOW_SECONDS))
      : undefined;
  const perAddress =
    redis && authFailures > 0 ? limiter('auth-failures', authFailures, AUTH_FAILURE_WINDOW_SECONDS) : undefined;
  const publicPoints = config.CHECKOUT_ADDRESS_LIMIT;
  const publicRoutes =
    redis && publicPoints > 0 ? limiter('checkout-address', publicPoints, ADDRESS_WINDOW_SECONDS) : undefined;

  let down = false;
  let retryAt = 0;
  /** Each address's failures as Redis last counted them, and when it was asked (`UNDER_LIMIT_KNOWN_MS`). */
  const knownFailures = new Map<string, { failures: number; askedAt: number }>();
  function know(address: string, res: RateLimiterRes | null) {
    knownFailures.delete(address);
    if (knownFailures.size >= KNOWN_ADDRESSES) knownFailures.delete(knownFailures.keys().next().value as string);
    knownFailures.set(address, { failures: res?.consumedPoints ?? 0, askedAt: Date.now() });
  }
  /** True when the address was counted under the limit less than `UNDER_LIMIT_KNOWN_MS` ago. */
  function knownUnderLimit(address: string): boolean {
    const known = knownFailures.get(address);
    return known !== undefined && known.failures < authFailures && Date.now() - known.askedAt < UNDER_LIMIT_KNOWN_MS;
  }

  /** The limiter's answer (`refused` when over the limit), or undefined when Redis failed: the caller fails open. */
  async function ask(
    operation: () => Promise<RateLimiterRes | null>,
  ): Promise<{ res: RateLimiterRes | null; refused: boolean } | undefined> {
    if (down && Date.now() < retryAt) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer within ${REDIS_DEADLINE_MS} ms`)),
        REDIS_DEADLINE_MS,
      );
    });
    try {
      const res = await Promise.race([operation(), deadline]);
      recovered();
      return { res, refused: false };
    } catch (error) {
      if (error instanceof RateLimiterRes) {
        recovered();
        return { res: error, refused: true };
      }
      retryAt = Date.now() + RETRY_AFTER_FAILURE_MS;
      if (!down) {
        down = true;
        log.warn({ err: error }, 'rate limits failing open: Redis does not answer, requests proceed unlimited');
      }
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  function recovered() {
    if (!down) return;
    down = false;
    log.info('rate limits enforced again: Redis answers');
  }

  return {
    status: () => (!perAccount && !perAddress && !publicRoutes ? 'off' : down ? 'failing open' : 'ok'),

    async authAttempt<T>(c: Context, attempt: () => Promise<T>): Promise<T> {
      if (!perAddress) return attempt();
      const address = clientAddress(c, config.TRUST_PROXY);
      const seen = knownUnderLimit(address) ? undefined : await ask(() => perAddress.get(address));
      if (seen) know(address, seen.res);
      if (seen?.res && seen.res.consumedPoints >= authFailures) {
        const wait = String(secondsUntil(seen.res.msBeforeNext));
        throw new ApiError({
          status: 429,
          code: 'too_many_failed_authentications',
          detail: `${authFailures} failed authentications from this address within a minute; retry after ${wait} s`,
          headers: { 'Retry-After': wait, ...limitHeaders(authFailures, seen.res) },
        });
      }
      const countFailure = async () => {
        const counted = await ask(() => perAddress.consume(address));
        if (counted) know(address, counted.res);
      };
      let result: T;
      try {
        result = await attempt();
      } catch (error) {
        if (isAuthFailure(error)) await countFailure();
        throw error;
      }
      if (isAuthFailure(c.error)) await countFailure();
      return result;
    },

    async perAccount(c, accountId, next) {
      if (!perAccount) return next();
      const answer = await ask(() => perAccount.consume(accountId));
      if (answer?.refused && answer.res) {
        const wait = String(secondsUntil(answer.res.msBeforeNext));
        throw new ApiError({
          status: 429,
          code: 'rate_limited',
          detail: `This account sent more than ${rps} requests per second (bursts up to ${rps * 2}); retry after ${wait} s`,
          headers: { 'Retry-After': wait, ...limitHeaders(rps, answer.res) },
        });
      }
      await next();
      if (answer?.res) addHeaders(c, limitHeaders(rps, answer.res));
    },

    async perAddress(c) {
      if (!publicRoutes) return;
      const answer = await ask(() => publicRoutes.consume(clientAddress(c, config.TRUST_PROXY)));
      if (answer?.refused && answer.res) {
        const wait = String(secondsUntil(answer.res.msBeforeNext));
        throw new ApiError({
          status: 429,
          code: 'rate_limited',
          detail: `More than ${publicPoints} checkout requests from this address within a minute; retry after ${wait} s`,
          headers: { 'Retry-After': wait, ...limitHeaders(publicPoints, answer.res) },
        });
      }
    },
  };
}
