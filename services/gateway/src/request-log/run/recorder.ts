import { OPERATOR_ACCOUNT_ID } from '@pps/shared/http';
import type { Context, MiddlewareHandler } from 'hono';
import type { AccountSnapshot } from '../../auth/auth-cache';
import type { GatewayEnv } from '../../auth/authenticate';
import { keptAnswerBody } from '../../bodies';
import type { BodySource } from '../model/entry';
import type { RequestLog } from './writer';

/** The auth routes' own variable: `POST /auth/key` and `/auth/token` know the account by its API key alone. */
type RecordedEnv = GatewayEnv & { Variables: { account?: AccountSnapshot } };

/** Pages of the console are a browser's, not API requests: not recorded (its sign-in is not an account's call). */
const CONSOLE = '/console';

/**
 * Records every request an account made, after it was answered: whatever set the caller (the four-header check, the
 * API key of `/auth/*`, a checkout session's client secret) made it the account's. Requests no account made (a
 * failed authentication, health, metrics, docs, static files) and the operator's (`/admin`) are not recorded.
 *
 * The request path's part is a push: the answer's body and the request's are kept by reference (`responseBody`,
 * `requestBody`), the clock read, and `record` called; reading, redacting and writing are the writer's.
 */
export const recordRequests =
  (requestLog: RequestLog): MiddlewareHandler<RecordedEnv> =>
  async (c, next) => {
    const startedAt = Date.now();
    const started = performance.now();
    await next();
    const accountId = c.get('caller')?.accountId ?? c.get('account')?.id;
    if (accountId === undefined || accountId === OPERATOR_ACCOUNT_ID) return;
    if (c.req.path.startsWith(CONSOLE)) return;
    const requestId = c.get('requestId');
    requestLog.record({
      accountId,
      method: c.req.method,
      url: c.req.url,
      status: c.res.status,
      requestId,
      clientChoseId: c.req.header('x-request-id') === requestId,
      idempotencyKey: c.req.header('idempotency-key'),
      startedAt,
      durationMs: Math.round(performance.now() - started),
      requestBody: requestBody(c),
      responseBody: responseBody(c.res),
    });
  };

/** The body as the gateway read it: the bytes it forwarded, or what Hono read for the gateway's own route. */
function requestBody(c: Context<RecordedEnv>): BodySource {
  const forwarded = c.get('requestBody');
  if (forwarded) return forwarded;
  const read = c.req.bodyCache;
  return read.text ?? read.arrayBuffer;
}

/** The answer's body as the log keeps it: where @hono/node-server keeps it (`keptAnswerBody`), else a copy to read. */
function responseBody(response: Response): BodySource {
  const kept = keptAnswerBody(response);
  if (kept !== undefined) return kept;
  if (response.body === null || response.bodyUsed) return undefined;
  return response.clone();
}
