import type { MiddlewareHandler } from 'hono';
import type { PoolWatch } from '../db/pool-watch';
import { ApiError } from '../errors/api-error';
import { databaseUnavailable, errorResponse } from './on-error';

/**
 * The request could not be finished in time for a reason other than the database (an upstream service, the
 * processor): the client retries shortly, a payment with the same requestId.
 */
export const serviceUnavailable = () =>
  new ApiError({
    status: 503,
    code: 'service_unavailable',
    detail: 'The request could not be finished in time; retry shortly (with the same requestId for a payment)',
    headers: { 'retry-after': '1' },
  });

/** How long the database may have stopped answering before the answer at a deadline blames it. */
const DATABASE_BLAMED_AFTER_MS = 1000;

/**
 * The request's deadline (docs/design.md, Deadlines): a request still unanswered after `ms` is answered 503 with
 * Retry-After, `database_unavailable` when the database has stopped answering (`watch`), else
 * `service_unavailable`. The work goes on out of sight and ends by its own limits (the connection's statement and
 * lock timeouts); what it commits is found by a retry with the same requestId, as after any 503.
 */
export function deadline(options: { ms: number; watch?: PoolWatch }): MiddlewareHandler {
  return async (c, next) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), options.ms);
    });
    const work = next().then(() => 'done' as const);
    const first = await Promise.race([work, late]).finally(() => clearTimeout(timer));
    if (first === 'done') return;
    // The handler still runs; what it throws later has no one to answer.
    work.catch(() => {});
    const stalled = (options.watch?.stalledMs() ?? 0) > DATABASE_BLAMED_AFTER_MS;
    return errorResponse(c, stalled ? databaseUnavailable() : serviceUnavailable());
  };
}

/**
 * Work the database cannot take now is refused at once (503 `database_unavailable`, Retry-After) instead of queued
 * to time out: once the pool has not answered for a quarter of the deadline, a request that writes would wait longer
 * than the deadline allows, and each one queued holds memory and a client. Reads (GET, HEAD) are never shed: they
 * use a pool of their own, and a client reading one resource keeps its answer within the deadline.
 */
export function shedding(options: { deadlineMs: number; watch: PoolWatch }): MiddlewareHandler {
  const threshold = options.deadlineMs / 4;
  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && options.watch.stalledMs() > threshold) {
      return errorResponse(c, databaseUnavailable());
    }
    await next();
  };
}
