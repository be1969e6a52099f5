import { CLIENT_SECRET_HEADER } from '@pps/shared/contract';
import { safeEqual, sha256Hex } from '@pps/shared/crypto';
import { errorResponse, notFound, unauthorized } from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { authErrors } from '../auth/auth.errors';
import type { GatewayDeps, GatewayEnv } from '../deps';
import type { RateLimits } from '../limits/rate-limits';
import { forward } from '../proxy/forward';
import { checkoutAsset } from './assets';
import { findGatewaySession, type GatewaySession } from './checkout.repository';
import { type FrameState, frameHeaders, frameHtml } from './frame';

export const checkoutErrors = {
  missingClientSecret: () =>
    unauthorized(
      'missing_client_secret',
      `The ${CLIENT_SECRET_HEADER} header with the session's client secret is required`,
    ),
  invalidClientSecret: () =>
    unauthorized('invalid_client_secret', 'The client secret is not the one of this checkout session'),
};

/** The form's own files; checkout.js is served at /checkout.js. */
const FRAME_FILES = new Set(['frame.js', 'frame.css']);

const stateOf = (session: GatewaySession, now: Date): FrameState =>
  now.getTime() >= session.expiresAt.getTime()
    ? 'expired'
    : session.tokensMade >= session.maxTokens
      ? 'complete'
      : 'open';

/**
 * The checkout's public routes on the gateway (docs/api.md, Checkout): `checkout.js` for the platform's page, the
 * hosted form and its files, and the form's card POST, authenticated by the session's client secret and forwarded
 * to the payments service as the session's account. Each is counted per client address (CHECKOUT_ADDRESS_LIMIT); a
 * wrong client secret is a failed authentication (AUTH_FAILURE_LIMIT), like a wrong API key.
 * Registered before the forwarded `/checkout` prefix, which serves the sessions with the four headers.
 */
export function registerCheckoutRoutes(app: Hono<GatewayEnv>, deps: GatewayDeps, limits: RateLimits) {
  const log = deps.log.child({ module: 'checkout' });

  const serveAsset = (c: Context<GatewayEnv>, name: string, shared: boolean) => {
    const asset = checkoutAsset(name);
    if (!asset) return undefined;
    return c.body(asset.body, 200, {
      'content-type': asset.type,
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
      // checkout.js is loaded by other origins' pages (some with COEP); the form's own files only by the form.
      ...(shared
        ? { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' }
        : { 'cross-origin-resource-policy': 'same-origin' }),
    });
  };

  app.get('/checkout.js', async (c) => {
    await limits.perAddress(c);
    return serveAsset(c, 'checkout.js', true) ?? c.notFound();
  });

  app.get('/checkout/assets/:file', async (c) => {
    await limits.perAddress(c);
    const file = c.req.param('file');
    return (FRAME_FILES.has(file) && serveAsset(c, file, false)) || c.notFound();
  });

  app.get('/checkout/frame/:id', async (c) => {
    await limits.perAddress(c);
    const id = c.req.param('id');
    const session = isId('checkoutSession', id) ? await findGatewaySession(deps.db, id) : undefined;
    if (!session) {
      // Nobody may frame an error.
      return errorResponse(c, notFound('checkoutSession', id, { headers: frameHeaders([]) }));
    }
    const state = stateOf(session, deps.clock.now());
    return c.html(frameHtml({ id: session.id, allowedOrigins: session.allowedOrigins, state }), 200, {
      ...frameHeaders(session.allowedOrigins),
    });
  });

  /** The card POST's authentication: the session's client secret, then the account's rate limit as for any call. */
  const clientSecret: MiddlewareHandler<GatewayEnv> = async (c, next) => {
    await limits.perAddress(c);
    const id = c.req.param('id') ?? '';
    const session = await limits.authAttempt(c, async () => {
      const secret = c.req.header(CLIENT_SECRET_HEADER);
      if (!secret) throw checkoutErrors.missingClientSecret();
      const found = isId('checkoutSession', id) ? await findGatewaySession(deps.db, id) : undefined;
      if (!found) throw notFound('checkoutSession', id);
      if (!safeEqual(sha256Hex(secret), found.clientSecretHash)) throw checkoutErrors.invalidClientSecret();
      if (found.accountStatus !== 'active') throw authErrors.accountDisabled();
      return found;
    });
    // The session's account calls, with the session id as its app: the payments service takes this route's calls
    // only from a caller whose app is the session, which an app token can never name.
    const account = {
      id: session.accountId,
      name: '',
      status: session.accountStatus,
      clockOffsetSeconds: session.clockOffsetSeconds,
    };
    c.set('caller', {
      accountId: session.accountId,
      appId: session.id,
      clockOffsetSeconds: session.clockOffsetSeconds,
      requestId: c.get('requestId'),
      apiKey: '',
      tokenExpiresAt: session.expiresAt,
      account,
    });
    await limits.perAccount(c, session.accountId, next);
  };

  app.post('/checkout/sessions/:id/tokens', clientSecret, (c) => forward(c, deps.upstreams.payments, { log }));
}
