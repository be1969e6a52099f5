import { randomSecret, safeEqual } from '@pps/shared/crypto';
import { ApiError } from '@pps/shared/http';
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { type GatewayDeps, gatewayContext } from '../../deps';
import type { RateLimits } from '../../limits/rate-limits';
import { Layout, Notice } from '../components/layout';
import type { ConsoleEnv } from '../console-env';
import { SESSION_IDLE_MS, signIn } from '../session/sessions.usecases';

/** The session cookie: opaque, HttpOnly, SameSite=Strict, sent to /console only; Secure when the API is on https. */
export const SESSION_COOKIE = 'pps_console';
/** Before a session exists, the sign-in form's CSRF token is the value of this cookie (double submit). */
const SIGN_IN_COOKIE = 'pps_console_sign_in';

const SignInPage = ({ token, error }: { token: string; error?: string }) => (
  <Layout title="Sign in">
    {error && <Notice kind="error">{error}</Notice>}
    <form method="post" action="/console/sign-in" class="sign-in">
      <input type="hidden" name="_csrf" value={token} />
      <label for="key">API key</label>
      <input
        id="key"
        name="key"
        type="password"
        autocomplete="off"
        required
        aria-describedby="key-help"
        spellcheck={false}
      />
      <p id="key-help" class="help">
        Your account's API key (<code>sk_test_…</code>), or the admin token to sign in as the operator.
      </p>
      <button type="submit">Sign in</button>
    </form>
  </Layout>
);

/** GET and POST /console/sign-in: the only pages a stranger sees. */
export function registerSignInPage(app: Hono<ConsoleEnv>, deps: GatewayDeps, limits: RateLimits) {
  const ctx = gatewayContext(deps);
  const secure = deps.config.PUBLIC_BASE_URL.startsWith('https:');
  const cookieOptions = { path: '/console', httpOnly: true, sameSite: 'Strict', secure } as const;

  const form = (c: Context<ConsoleEnv>, status: 200 | 401 | 403 | 429, error?: string) => {
    const token = randomSecret('', 24);
    setCookie(c, SIGN_IN_COOKIE, token, { ...cookieOptions, maxAge: 3600 });
    return c.html(<SignInPage token={token} error={error} />, status);
  };

  app.get('/console/sign-in', (c) => form(c, 200));

  app.post('/console/sign-in', async (c) => {
    const fields = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const expected = getCookie(c, SIGN_IN_COOKIE);
    const sent = typeof fields._csrf === 'string' ? fields._csrf : '';
    if (!expected || !safeEqual(sent, expected)) {
      return form(c, 403, 'The form expired or came from elsewhere; nothing was sent. Try again.');
    }
    const credential = typeof fields.key === 'string' ? fields.key.trim() : '';
    try {
      const { cookie } = await limits.authAttempt(c, () => signIn({ ctx, credential }));
      deleteCookie(c, SIGN_IN_COOKIE, { path: '/console' });
      setCookie(c, SESSION_COOKIE, cookie, { ...cookieOptions, maxAge: SESSION_IDLE_MS / 1000 });
      return c.redirect('/console', 303);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 429)) throw error;
      if (error.status === 429) c.header('retry-after', error.headers?.['Retry-After'] ?? '60');
      return form(c, error.status, error.detail);
    }
  });
}
