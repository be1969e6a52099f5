import { ApiError, type CallerContext, INTERNAL_REFUSAL_HEADER } from '@pps/shared/http';
import type { Logger } from '@pps/shared/logger';
import type { Context } from 'hono';
import type { GatewayEnv } from '../auth/authenticate';
import { requestBytes } from '../bodies';
import type { Forwarded, Upstream } from './upstream';

/** Headers the client may not pass through: hop-by-hop, the credentials, and anything that claims to be internal. */
const DROPPED = new Set([
  'authorization',
  'x-api-key',
  'appid',
  'x-client-secret',
  'host',
  'connection',
  'keep-alive',
  'content-length',
  // The other hop-by-hop headers: they describe the client's connection, not the forwarded call.
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-connection',
]);

/** Forwards the authenticated request to a service with the caller the gateway vouches for (the upstream signs it). */
export async function forward(c: Context<GatewayEnv>, upstream: Upstream, deps: { log: Logger }): Promise<Response> {
  const caller = c.get('caller');
  // An older API version's request as its changes cut it (`versioned`), else as it came.
  const url = c.get('versionedUrl') ?? new URL(c.req.url);
  const headers = new Headers();
  c.req.raw.headers.forEach((value, name) => {
    if (!DROPPED.has(name) && !name.startsWith('x-pps-')) headers.set(name, value);
  });
  headers.set('x-request-id', c.get('requestId'));
  const vouched: CallerContext = {
    accountId: caller.accountId,
    appId: caller.appId,
    clockOffsetSeconds: caller.clockOffsetSeconds,
    requestId: c.get('requestId'),
  };
  const body = c.req.method !== 'GET' && c.req.method !== 'HEAD' ? await requestBytes(c) : undefined;
  // An empty body is no body: forwarded as an empty stream without content-length, the service would see a body
  // without a Content-Type and answer 415 to a bodiless action (POST /webhooks/{id}/rotate-secret).
  const request: Forwarded = {
    url,
    method: c.req.method,
    headers,
    body: body && body.byteLength > 0 ? body : undefined,
    caller: vouched,
  };
  let response: Response;
  try {
    response = await upstream.fetch(request);
  } catch (error) {
    deps.log.error({ err: error, upstream: upstream.name, requestId: c.get('requestId') }, 'upstream call failed');
    throw new ApiError({
      status: 502,
      code: 'upstream_unavailable',
      detail: `The ${upstream.name} service did not answer; retry shortly`,
    });
  }
  if (response.headers.has(INTERNAL_REFUSAL_HEADER)) {
    // A misconfiguration between gateway and service (secrets, clocks): logged, never shown to the client.
    deps.log.error(
      { upstream: upstream.name, requestId: c.get('requestId') },
      'service refused the internal signature',
    );
    throw new ApiError({
      status: 502,
      code: 'upstream_refused',
      detail: 'The request could not be processed; retry shortly',
    });
  }
  return response;
}
