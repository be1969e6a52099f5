import { safeEqual } from '@pps/shared/crypto';
import type { Hono } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import type { GatewayEnv } from '../auth/authenticate';
import { type GatewayDeps, gatewayContext } from '../deps';
import type { RateLimits } from '../limits/rate-limits';
import { consoleAsset } from './assets';
import { Layout } from './components/layout';
import { NotFound } from './components/not-found';
import type { ConsoleEnv } from './console-env';
import { registerAccountsPage } from './pages/accounts';
import { registerAchFilesPages } from './pages/ach-files';
import { registerDevelopersPages } from './pages/developers';
import { registerDisputePage } from './pages/dispute';
import { registerDisputesPage } from './pages/disputes';
import { registerEventsPages } from './pages/events';
import { registerHealthPages } from './pages/health';
import { registerHomePages } from './pages/home';
import { registerMerchantsPages } from './pages/merchants';
import { registerPaymentPage } from './pages/payment';
import { registerPaymentsPage } from './pages/payments';
import { registerPayoutsPages } from './pages/payouts';
import { registerRequestsPages } from './pages/requests';
import { registerSettlementReportsPages } from './pages/settlement-reports';
import { registerSignInPage, SESSION_COOKIE } from './pages/sign-in';
import { registerWebhookPage } from './pages/webhook';
import { registerWebhooksPage } from './pages/webhooks';
import { signOut, viewerOf } from './session/sessions.usecases';

/**
 * Every console answer: scripts and styles from this origin only (no inline script, no `eval`), no framing, forms
 * posting only here, nothing cached, no referrer leaving with an id in the URL.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

/**
 * The console at /console (docs/design.md, The console): server-rendered pages over the platform's own API for the
 * signed-in account, and the operator's pages for the admin token. Forms are plain HTML; every POST carries the
 * session's CSRF token (403 without it, nothing changed).
 */
export function registerConsoleRoutes(app: Hono<GatewayEnv>, deps: GatewayDeps, limits: RateLimits) {
  const ctx = gatewayContext(deps);
  const console = app as unknown as Hono<ConsoleEnv>;

  console.use('/console/*', async (c, next) => {
    await next();
    c.header('content-security-policy', CONTENT_SECURITY_POLICY);
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'same-origin');
    c.header('x-frame-options', 'DENY');
    if (!c.res.headers.has('cache-control')) c.header('cache-control', 'no-store');
  });
  console.get('/console/assets/:name', (c) => {
    const asset = consoleAsset(c.req.param('name'));
    if (!asset) return c.notFound();
    return c.body(asset.body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=300' });
  });

  registerSignInPage(console, deps, limits);

  // Past sign-in, every page needs a session: without one, back to the form (nothing is done for a stranger).
  console.use('/console/*', async (c, next) => {
    const viewer = await viewerOf({ ctx, cookie: getCookie(c, SESSION_COOKIE) });
    if (!viewer) {
      deleteCookie(c, SESSION_COOKIE, { path: '/console' });
      return c.redirect('/console/sign-in', 303);
    }
    c.set('viewer', viewer);
    if (c.req.method === 'POST') {
      const form = await c.req.parseBody().catch(() => ({}));
      const fields = Object.fromEntries(
        Object.entries(form).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );
      if (!safeEqual(fields._csrf ?? '', viewer.csrfToken)) {
        return c.html(
          <Layout title="Form expired" viewer={viewer}>
            <p role="alert">
              This form could not be trusted (it was stale, or sent from elsewhere); nothing was changed. Go back,
              reload the page and try again.
            </p>
          </Layout>,
          403,
        );
      }
      c.set('form', fields);
    }
    await next();
  });

  console.post('/console/sign-out', async (c) => {
    await signOut({ ctx, sessionId: c.get('viewer').sessionId });
    deleteCookie(c, SESSION_COOKIE, { path: '/console' });
    return c.redirect('/console/sign-in', 303);
  });
  registerHomePages(console, deps);
  registerPaymentsPage(console, deps);
  registerPaymentPage(console, deps);
  registerDisputesPage(console, deps);
  registerDisputePage(console, deps);
  registerWebhooksPage(console, deps);
  registerWebhookPage(console, deps);
  registerMerchantsPages(console, deps);
  registerPayoutsPages(console, deps);
  registerDevelopersPages(console, deps);
  registerEventsPages(console, deps);
  registerRequestsPages(console, deps);
  registerAccountsPage(console, deps);
  registerHealthPages(console, deps);
  registerAchFilesPages(console, deps);
  registerSettlementReportsPages(console, deps);

  console.all('/console/*', (c) => c.html(<NotFound viewer={c.get('viewer')} />, 404));
}
