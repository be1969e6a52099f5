import type { Dispatcher } from 'undici';

/** What a receiver answered: its status, its `Retry-After`, and the start of an error answer's body. */
export type Answered = { statusCode: number; retryAfter: string | null; bodyStart: string };

/** The most of an error answer's body kept: enough for a 300-character excerpt whatever the UTF-8 lengths. */
export const BODY_START_BYTES = 1_200;
/** The most of a success's body read to keep its connection (undici's `dump` default); past it the connection closes. */
const SUCCESS_BODY_BYTES = 131_072;

/** A 2xx: the receiver took the delivery. */
export const isSuccess = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** The error a request that outlived its time fails with. */
const timedOut = () => Object.assign(new Error('the request timed out'), { name: 'TimeoutError' });

/**
 * POSTs `body` to `url` through the agent (its kept-alive connections), with undici's dispatcher API: the answer is
 * read as it arrives, with no body stream, abort signal or promise of undici's per request: a delivery takes the
 * webhooks process about a fifth less CPU than with undici's `request` (docs/decisions.md). Redirects are not
 * followed. The whole request has `timeoutMs`: past it the promise rejects with a `TimeoutError` at once, and the
 * request is aborted as soon as it can be (a connection still being made is aborted once made). A success's body is
 * read to its end (so the connection serves the next request) up to 128 KiB; an error's only as far as
 * BODY_START_BYTES; in either case the connection is closed rather than read further. Rejects with the network's
 * error otherwise.
 */
export function post(
  agent: Dispatcher,
  url: string,
  request: { headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<Answered> {
  const { origin, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let statusCode = 0;
    let retryAfter: string | null = null;
    const kept: Buffer[] = [];
    let size = 0;
    let cut = false;
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) return reject(error);
      const start = Buffer.concat(kept).subarray(0, BODY_START_BYTES).toString('utf8');
      resolve({ statusCode, retryAfter, bodyStart: cut ? `${start}…` : start });
    };
    /** Settles with what was read, and closes the connection rather than read the rest. */
    const enough = (reason: string) => {
      settle();
      controller?.abort(new Error(reason));
    };
    const timer = setTimeout(() => {
      const error = timedOut();
      settle(error);
      controller?.abort(error);
    }, request.timeoutMs);
    agent.dispatch(
      { origin, path: `${pathname}${search}`, method: 'POST', headers: request.headers, body: request.body },
      {
        onRequestStart(started) {
          controller = started;
          if (settled) started.abort(timedOut());
        },
        onResponseStart(_controller, status, headers) {
          statusCode = status;
          const header = headers['retry-after'];
          retryAfter = typeof header === 'string' ? header : null;
        },
        onResponseData(_controller, chunk) {
          size += chunk.length;
          if (isSuccess(statusCode)) {
            if (size > SUCCESS_BODY_BYTES) enough('a success body past 128 KiB is not read');
            return;
          }
          kept.push(chunk);
          if (size > BODY_START_BYTES) {
            cut = true;
            enough('the rest of an error body is not read');
          }
        },
        onResponseEnd() {
          settle();
        },
        onResponseError(_controller, error) {
          settle(error);
        },
      },
    );
  });
}
