import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../fixtures/merchants';
import { createCardToken, createPayment, tokenv3Body } from '../../fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { consoleClient } from './console-client';

/**
 * The console's guarantees, in-process: sign-in and its session cookie, CSRF on every state-changing form, another
 * account's ids answered 404, a revoked key's session over at the next request, user strings escaped.
 */

let stack: TestStack;
let acme: Credentials;
let globex: Credentials;
let merchantId: string;
let paymentId: string;
let globexPaymentId: string;

const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';

beforeAll(async () => {
  stack = await createTestStack({ manualClock: true });
  [acme, globex] = await Promise.all([stack.createAccount('Acme'), stack.createAccount('Globex')]);
  merchantId = await createMerchant(stack, acme, { accountName: `Shop ${XSS}` });
  const tokenId = await createCardToken(stack, acme);
  const body = tokenv3Body({
    merchantId,
    tokenId,
    attributes: { transaction: { amount: '1000', currency: 'USD', invoice: XSS } },
  });
  paymentId = (await createPayment(stack, acme, body)).body.data.id;
  const globexMerchant = await createMerchant(stack, globex);
  const globexToken = await createCardToken(stack, globex);
  globexPaymentId = (
    await createPayment(stack, globex, tokenv3Body({ merchantId: globexMerchant, tokenId: globexToken }))
  ).body.data.id;
});
afterAll(() => stack?.close());

const sessions = async () => Number((await stack.sql`select count(*)::int as n from console_sessions`)[0]?.n);
const refunds = async () =>
  Number((await stack.sql`select count(*)::int as n from payments where parent_payment_id = ${paymentId}`)[0]?.n);

describe('sign-in', () => {
  it('shows a form with the field "API key" and the button "Sign in", and sends strangers to it', async () => {
    const browser = consoleClient(stack);
    const page = await browser.get('/console/sign-in');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<label for="key">API key</label>');
    expect(page.text).toContain('<button type="submit">Sign in</button>');
    for (const path of ['/console', '/console/payments', `/console/payments/${paymentId}`]) {
      const res = await browser.get(path);
      expect([res.status, res.headers.get('location')]).toEqual([303, '/console/sign-in']);
    }
  });

  it('sets an opaque HttpOnly SameSite=Strict cookie for /console, kept 12 hours', async () => {
    const browser = consoleClient(stack);
    const res = await browser.signIn(acme.apiKey);
    expect([res.status, res.headers.get('location')]).toEqual([303, '/console']);
    const cookie = browser.setCookies.find((line) => line.startsWith('pps_console='));
    expect(cookie).toMatch(
      /^pps_console=cs_console_[\w-]{43}; Max-Age=43200; Path=\/console; HttpOnly; SameSite=Strict$/,
    );
    expect(cookie).not.toContain(acme.apiKey);
    const stored = await stack.sql`select id, credential_hash from console_sessions`;
    expect(JSON.stringify(stored)).not.toContain(browser.cookies.get('pps_console'));
  });

  it('refuses a wrong key with a 401 on the form, and a sign-in without its form token with a 403', async () => {
    const before = await sessions();
    const browser = consoleClient(stack);
    const wrong = await browser.signIn('sk_test_not-a-key');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('That key was not accepted');
    const forged = await consoleClient(stack).post('/console/sign-in', { key: acme.apiKey });
    expect(forged.status).toBe(403);
    expect(await sessions()).toBe(before);
  });

  it('signs the operator in with the admin token to the accounts list', async () => {
    const browser = consoleClient(stack);
    await browser.signIn(stack.config.ADMIN_TOKEN);
    const home = await browser.get('/console');
    expect(home.headers.get('location')).toBe('/console/accounts');
    const accounts = await browser.get('/console/accounts');
    expect(accounts.status).toBe(200);
    expect(accounts.text).toContain(acme.accountId);
    expect(accounts.text).not.toContain(acme.apiKey);
  });

  it('sign-out ends the session on the server: the old cookie no longer opens a page', async () => {
    const browser = consoleClient(stack);
    await browser.signIn(acme.apiKey);
    const cookie = browser.cookies.get('pps_console') as string;
    const page = await browser.get('/console/payments');
    const out = await browser.post('/console/sign-out', { _csrf: browser.hidden(page.text, '_csrf') });
    expect([out.status, out.headers.get('location')]).toEqual([303, '/console/sign-in']);
    const replay = await stack.gateway.request('/console/payments', { headers: { cookie: `pps_console=${cookie}` } });
    expect(replay.status).toBe(303);
  });

  it('a replaced API key ends the sessions it opened at their next request', async () => {
    const account = await stack.createAccount('Rotates');
    const browser = consoleClient(stack);
    await browser.signIn(account.apiKey);
    expect((await browser.get('/console/payments')).status).toBe(200);
    await stack.sql`update accounts set api_key_hash = 'replaced' where id = ${account.accountId}`;
    const after = await browser.get('/console/payments');
    expect([after.status, after.headers.get('location')]).toEqual([303, '/console/sign-in']);
  });
});

describe('pages', () => {
  it('send a Content-Security-Policy without unsafe-inline, and escape every user string', async () => {
    const browser = consoleClient(stack);
    await browser.signIn(acme.apiKey);
    for (const path of [
      '/console/payments',
      `/console/payments/${paymentId}`,
      `/console/payments?invoice=${encodeURIComponent(XSS)}`,
    ]) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(200);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).not.toContain('<img src=x');
    }
    const detail = await browser.get(`/console/payments/${paymentId}`);
    expect(detail.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('answer another account’s payment with a 404 page', async () => {
    const browser = consoleClient(stack);
    await browser.signIn(acme.apiKey);
    const page = await browser.get(`/console/payments/${globexPaymentId}`);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain(globexPaymentId.slice(4));
  });

  it('a refund needs the CSRF token: without it 403 and nothing changed; with it, confirmed, once', async () => {
    const browser = consoleClient(stack);
    await browser.signIn(acme.apiKey);
    const page = await browser.get(`/console/payments/${paymentId}`);
    const requestId = browser.hidden(page.text.split('/refund"')[1] ?? '', 'requestId');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const before = await refunds();
    const forged = await browser.post(`/console/payments/${paymentId}/refund`, {
      amount: '2.50',
      requestId,
      confirm: 'yes',
    });
    expect(forged.status).toBe(403);
    expect(await refunds()).toBe(before);
    const csrf = browser.hidden(page.text, '_csrf');
    const confirm = await browser.post(`/console/payments/${paymentId}/refund`, {
      _csrf: csrf,
      amount: '2.50',
      requestId,
    });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Confirm refund');
    expect(await refunds()).toBe(before);
    const done = await browser.post(`/console/payments/${paymentId}/refund`, {
      _csrf: csrf,
      amount: '2.50',
      requestId,
      confirm: 'yes',
    });
    expect(done.status).toBe(303);
    const again = await browser.post(`/console/payments/${paymentId}/refund`, {
      _csrf: csrf,
      amount: '2.50',
      requestId,
      confirm: 'yes',
    });
    expect(again.status).toBe(303);
    expect(await refunds()).toBe(before + 1);
    const shown = await browser.get(done.headers.get('location') as string);
    expect(shown.text).toContain('Refund recorded');
  });
});

// Last: it moves the stack's clock past the app tokens' hour, which the other tests' API calls need.
describe('idle sessions', () => {
  it('a session idle for 12 hours is over', async () => {
    const browser = consoleClient(stack);
    await browser.signIn(acme.apiKey);
    stack.clock?.advance(12 * 3600_000 + 1000);
    const after = await browser.get('/console/payments');
    expect(after.status).toBe(303);
  });
});
