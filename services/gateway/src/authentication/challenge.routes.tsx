import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { consoleApi } from '../console/console-api';
import type { GatewayDeps, GatewayEnv } from '../deps';
import type { RateLimits } from '../limits/rate-limits';
import { ChallengePage, type ChallengePageState } from './challenge-page';
import { findOpenChallenge, type OpenChallenge } from './challenges.repository';

/** The caller's app as the payments service sees the page's calls. */
const APP_ID = '3ds-challenge-page';

/** The page's origin and the shop's: the form posts here, and its answer redirects there (CSP `form-action`). */
const headersFor = (returnUrl: string | null) => ({
  'content-security-policy': [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `form-action 'self'${returnUrl ? ` ${new URL(returnUrl).origin}` : ''}`,
    // The shop the cardholder returns to may show the page in its modal (checkout.js's `handleNextAction`).
    `frame-ancestors ${returnUrl ? new URL(returnUrl).origin : "'none'"}`,
    "base-uri 'none'",
  ].join('; '),
  // The shop must not learn the challenge's link from the Referer of its return page.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});

const expiredAt = (challenge: OpenChallenge, now: Date) =>
  challenge.expiresAt.getTime() <= now.getTime() + challenge.clockOffsetSeconds * 1000;

/** Where the cardholder goes back to: the shop's `returnUrl` with the payment's id and status in its query. */
function backTo(returnUrl: string, paymentId: string, status?: string): string {
  const url = new URL(returnUrl);
  url.searchParams.set('paymentId', paymentId);
  if (status) url.searchParams.set('status', status);
  return url.toString();
}

/**
 * The hosted 3-D Secure challenge page (docs/api.md, 3-D Secure), public as the checkout form is: `GET
 * /3ds/challenge?token=…` shows the payment to confirm; its form's POST answers the challenge through the payments
 * API, as the payment's account (`POST /payments/{id}/authentication`), then sends the browser back to the shop's
 * `returnUrl` (303) with `paymentId` and `status`. A link used, lapsed (15 minutes by the account's clock) or never
 * made is a page that says so (410, 404), never the form. Counted per client address (CHECKOUT_ADDRESS_LIMIT).
 */
export function registerChallengeRoutes(app: Hono<GatewayEnv>, deps: GatewayDeps, limits: RateLimits) {
  const page = (
    c: Context<GatewayEnv>,
    status: ContentfulStatusCode,
    state: ChallengePageState,
    returnUrl = null as string | null,
  ) => c.html(<ChallengePage state={state} />, status, headersFor(returnUrl));
  const find = (token: unknown) =>
    typeof token === 'string' && token.startsWith('tds_') && token.length <= 200
      ? findOpenChallenge(deps.db, token)
      : Promise.resolve(undefined);

  app.get('/3ds/challenge', async (c) => {
    await limits.perAddress(c);
    const token = c.req.query('token');
    const challenge = await find(token);
    if (!challenge) return page(c, 404, { kind: 'unknown' });
    if (expiredAt(challenge, deps.clock.now())) {
      const back = challenge.returnUrl && backTo(challenge.returnUrl, challenge.paymentId);
      return page(c, 410, { kind: 'expired', backTo: back }, challenge.returnUrl);
    }
    return page(c, 200, { kind: 'open', challenge, token: token as string }, challenge.returnUrl);
  });

  app.post('/3ds/challenge', async (c) => {
    await limits.perAddress(c);
    const form = await c.req.parseBody();
    const outcome = form.outcome === 'completed' || form.outcome === 'failed' ? form.outcome : undefined;
    const challenge = outcome ? await find(form.token) : undefined;
    if (!challenge) return page(c, outcome ? 410 : 400, { kind: outcome ? 'expired' : 'unknown', backTo: null });
    if (challenge.accountStatus !== 'active') return page(c, 403, { kind: 'unknown' });
    const api = consoleApi(
      deps,
      { id: challenge.accountId, clockOffsetSeconds: challenge.clockOffsetSeconds },
      c.get('requestId'),
      APP_ID,
    );
    const path = `/payments/${challenge.paymentId}`;
    const answer = await api.post<{ data: { attributes: { status: string } } }>(`${path}/authentication`, {
      data: { type: 'authentications', attributes: { token: form.token, outcome } },
    });
    // Answered, or ended meanwhile (answered by another submission, or lapsed): back to the shop with how it stands.
    const current =
      answer.status === 200
        ? answer.body
        : answer.status === 410
          ? (await api.get<{ data: { attributes: { status: string } } }>(path)).body
          : undefined;
    const status = current?.data?.attributes?.status;
    if (!status || !challenge.returnUrl) return page(c, 502, { kind: 'unavailable' });
    return c.redirect(backTo(challenge.returnUrl, challenge.paymentId, status), 303);
  });
}
