import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, listen } from '@pps/shared/runtime';
import { type Browser, type BrowserContext, chromium, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { createPayment, setClock, tokenv3Body } from '../fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from '../harness';

/**
 * The embedded checkout in a real browser (Debian's chromium, driven by playwright-core): a shop page on one origin
 * (`http://localhost:<shop port>`) mounts the hosted form served by the API on another (`http://127.0.0.1:<api port>`)
 * with checkout.js; the test types a card as a buyer would, and the shop receives a token and pays with it. The shop
 * page's DOM, the messages it receives and every URL the browser asks for must never hold the card number.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PAN = '4242424242424242';
const CODE = '737';

let stack: TestStack;
let api: { server: Server; origin: string };
let shop: { server: Server; port: number; origin: string };
let browser: Browser;
let creds: Credentials;
let merchant: string;

/**
 * Shop pages by key: each renders one session, as a platform's server would render its checkout page, with the
 * button "Pay $10.00" unless `submitLabel` says otherwise (null: the form's own, "Save card").
 */
type ShopPage = { sessionId: string; clientSecret: string; timeoutMs?: number; submitLabel?: string | null };
const pages = new Map<string, ShopPage>();
/** Every path the shop server was asked for. */
const shopRequests: string[] = [];

function shopPage(key: string): string {
  const config = pages.get(key);
  if (!config) return '<!doctype html><title>gone</title>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test shop</title></head>
<body>
  <h1>Test shop</h1>
  <div id="card"></div>
  <p id="result"></p>
  <script id="config" type="application/json">${JSON.stringify(config)}</script>
  <script src="${api.origin}/checkout.js"></script>
  <script>
    window.__messages = [];
    window.__tokens = [];
    window.__errors = [];
    window.__ready = false;
    window.addEventListener('message', (event) => window.__messages.push({ origin: event.origin, data: event.data }));
    const config = JSON.parse(document.getElementById('config').textContent);
    window.__checkout = mountCheckout({
      element: '#card',
      sessionId: config.sessionId,
      clientSecret: config.clientSecret,
      timeoutMs: config.timeoutMs,
      submitLabel: 'submitLabel' in config ? config.submitLabel : 'Pay $10.00',
      onReady: () => { window.__ready = true; },
      onToken: (token) => {
        window.__tokens.push(token);
        document.getElementById('result').textContent = 'Paid with ' + token.card.brand + ' ' + token.card.last4;
      },
      onError: (error) => window.__errors.push(error),
    });
  </script>
</body></html>`;
}

beforeAll(async () => {
  stack = await createTestStack();
  const listening = await listen(stack.gateway.fetch, 0, '127.0.0.1');
  api = { server: listening.server, origin: `http://127.0.0.1:${listening.port}` };
  const server = createServer((request, response) => {
    shopRequests.push(request.url ?? '');
    const key = /^\/shop\/([\w-]+)$/.exec(request.url ?? '')?.[1];
    // Where a 3-D Secure challenge sends the cardholder back (the payment's `returnUrl`).
    const back = (request.url ?? '').startsWith('/return?');
    response.writeHead(key || back ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      key ? shopPage(key) : back ? '<!doctype html><title>Back at the shop</title><p>Thanks</p>' : 'not found',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  shop = { server, port, origin: `http://localhost:${port}` };
  [browser, creds] = await Promise.all([
    chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    stack.createAccount('Browser Shop'),
  ]);
  merchant = await createMerchant(stack, creds);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (shop) await new Promise((resolve) => shop.server.close(resolve));
  if (api) await closeServer(api.server);
  await stack?.close();
});

async function createSession(as: Credentials, allowedOrigins = [shop.origin]) {
  const attributes = { allowedOrigins, ...(as === creds ? { merchantId: merchant } : {}) };
  const res = await stack.call('POST', '/checkout/sessions', {
    as,
    body: { data: { type: 'checkoutSessions', attributes } },
  });
  if (res.status !== 201) throw new Error(`session creation failed: ${JSON.stringify(res.body)}`);
  return { sessionId: res.body.data.id as string, clientSecret: res.body.data.attributes.clientSecret as string };
}

const tokenCount = async () =>
  ((await stack.sql`select count(*)::int as n from tokens`) as unknown as [{ n: number }])[0].n;

type Opened = { page: Page; context: BrowserContext; urls: string[]; console: string[]; frame: () => Frame };

/** Opens the shop page of a session from `origin` in a fresh context; records every URL and console line. */
async function openShop(
  session: { sessionId: string; clientSecret: string },
  options: { origin?: string; timeoutMs?: number; submitLabel?: string | null } = {},
): Promise<Opened> {
  const key = Math.random().toString(36).slice(2);
  const { origin: _, ...shown } = options;
  pages.set(key, { ...session, ...shown });
  const context = await browser.newContext();
  const page = await context.newPage();
  const urls: string[] = [];
  const console: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  page.on('console', (message) => console.push(message.text()));
  await page.goto(`${options.origin ?? shop.origin}/shop/${key}`);
  const frame = () => {
    const child = page.frames().find((candidate) => candidate !== page.mainFrame());
    if (!child) throw new Error('no iframe');
    return child;
  };
  return { page, context, urls, console, frame };
}

const waitReady = (page: Page) => page.waitForFunction(() => (window as any).__ready === true);

/** What the buyer does, by keyboard: name, number (grouped as typed), expiry, security code, Enter. */
async function typeCard(frame: Frame, card: { holder?: string; number?: string; expiry?: string; code?: string }) {
  await frame.locator('#holder').focus();
  await frame.page().keyboard.type(card.holder ?? 'Jane Buyer');
  await frame.page().keyboard.press('Tab');
  await frame.page().keyboard.type(card.number ?? PAN, { delay: 5 });
  await frame.page().keyboard.press('Tab');
  await frame.page().keyboard.type(card.expiry ?? '1230');
  await frame.page().keyboard.press('Tab');
  await frame.page().keyboard.type(card.code ?? CODE);
}

/** Neither the shop's DOM, nor any message it received, nor any URL holds the card number or security code. */
async function expectNoCardDataAtTheShop(opened: Opened, pan = PAN) {
  // The page holds its session's client secret (random text that could hold the code's digits): left out here.
  const { clientSecret } = await opened.page.evaluate(() =>
    JSON.parse(document.getElementById('config')!.textContent!),
  );
  const html = (await opened.page.content()).replace(clientSecret, '');
  const messages = JSON.stringify(await opened.page.evaluate(() => (window as any).__messages));
  const grouped = pan.replace(/(\d{4})(?=\d)/g, '$1 ');
  for (const text of [html, messages]) {
    expect(text).not.toContain(pan);
    expect(text).not.toContain(grouped);
    expect(text).not.toMatch(new RegExp(`\\b${CODE}\\b`));
  }
  for (const url of [...opened.urls, ...shopRequests]) {
    expect(url).not.toContain(pan.slice(0, 12));
    expect(url).not.toContain('cs_secret_');
  }
}

describe('the embedded checkout in chromium', () => {
  it('a shop on another origin mounts the form; the buyer types a card; the shop gets a token and pays with it', async () => {
    const session = await createSession(creds);
    const opened = await openShop(session);
    try {
      await waitReady(opened.page);
      const frame = opened.frame();
      expect(new URL(frame.url()).origin).toBe(api.origin);
      // Labelled fields, the button the shop asked for, the brand and the grouping as the buyer types.
      await expect(frame.getByLabel('Card number').count()).resolves.toBe(1);
      await expect(frame.getByRole('button', { name: 'Pay $10.00' }).isEnabled()).resolves.toBe(true);
      await typeCard(frame, {});
      expect(await frame.locator('#number').inputValue()).toBe('4242 4242 4242 4242');
      expect(await frame.locator('#number-brand').textContent()).toBe('Visa');
      expect(await frame.locator('#expiry').inputValue()).toBe('12 / 30');
      await opened.page.keyboard.press('Enter');
      await opened.page.waitForFunction(() => (window as any).__tokens.length === 1);

      const [token] = await opened.page.evaluate(() => (window as any).__tokens);
      expect(token).toEqual({
        tokenId: expect.stringMatching(/^tok_/),
        card: { brand: 'visa', last4: '4242', expiry: '1230', holder: 'Jane Buyer' },
      });
      expect(await opened.page.locator('#result').textContent()).toBe('Paid with visa 4242');
      // The button is the page's ("Pay $10.00"): the page says what became of the card, the form does not say
      // "Card saved" (a decline may follow).
      expect(await frame.locator('#form-status').textContent()).toBe('');
      expect(await frame.locator('#number').inputValue()).toBe(''); // the number does not linger
      await expectNoCardDataAtTheShop(opened);
      // Every message came from the API's origin; the form's POST went to the API with the secret in a header.
      const origins = await opened.page.evaluate(() => (window as any).__messages.map((m: any) => m.origin));
      expect(new Set(origins)).toEqual(new Set([api.origin]));
      expect(opened.urls).toContain(`${api.origin}/checkout/sessions/${session.sessionId}/tokens`);

      // The shop's server pays with the token (through the API), as the README's ten lines do.
      const payment = await createPayment(
        stack,
        creds,
        tokenv3Body({ merchantId: merchant, tokenId: token.tokenId, expiry: token.card.expiry }),
      );
      expect(payment.body.data.attributes).toMatchObject({ status: 'pending', card: { brand: 'visa', last4: '4242' } });
      const read = await stack.call('GET', `/checkout/sessions/${session.sessionId}`, { as: creds });
      expect(read.body.data.attributes.tokenIds).toEqual([token.tokenId]);
    } finally {
      await opened.context.close();
    }
  });

  it('shows the brand as typed: American Express grouped 4-6-5, with a 4-digit security code', async () => {
    const session = await createSession(creds);
    const opened = await openShop(session);
    try {
      await waitReady(opened.page);
      const frame = opened.frame();
      await typeCard(frame, { number: '378282246310005', code: '123' });
      expect(await frame.locator('#number').inputValue()).toBe('3782 822463 10005');
      expect(await frame.locator('#number-brand').textContent()).toBe('American Express');
      await opened.page.keyboard.press('Enter');
      expect(await frame.locator('#code-error').textContent()).toBe('An American Express security code has 4 digits.');
      expect(await frame.locator('#code').getAttribute('aria-invalid')).toBe('true');
      await frame.waitForFunction(() => document.activeElement?.id === 'code');
      await opened.page.keyboard.type('4');
      expect(await frame.locator('#code').getAttribute('aria-invalid')).toBe('false');
      await opened.page.keyboard.press('Enter');
      await opened.page.waitForFunction(() => (window as any).__tokens.length === 1);
      const [token] = await opened.page.evaluate(() => (window as any).__tokens);
      expect(token.card).toEqual({ brand: 'amex', last4: '0005', expiry: '1230', holder: 'Jane Buyer' });
      await expectNoCardDataAtTheShop(opened, '378282246310005');
    } finally {
      await opened.context.close();
    }
  });

  it('the page disables the form while it charges a token, and enables it again; "Save card" says it saved', async () => {
    const session = await createSession(creds);
    const opened = await openShop(session, { submitLabel: null });
    try {
      await waitReady(opened.page);
      const frame = opened.frame();
      const button = frame.getByRole('button', { name: 'Save card' });
      await typeCard(frame, {});
      await opened.page.keyboard.press('Enter');
      await opened.page.waitForFunction(() => (window as any).__tokens.length === 1);
      // The form's own button: the form says the card is saved.
      expect(await frame.locator('#form-status').textContent()).toBe('Card saved: Visa ending in 4242.');

      // Held by the page: every field and the button disabled, and a submit from the page does nothing.
      await typeCard(frame, {});
      await opened.page.evaluate(() => (window as any).__checkout.disable());
      await frame.waitForFunction(() => (document.getElementById('card-fields') as HTMLFieldSetElement).disabled);
      expect(await button.isDisabled()).toBe(true);
      expect(await frame.locator('#number').isDisabled()).toBe(true);
      await opened.page.evaluate(() => (window as any).__checkout.submit());
      // Messages arrive in order: once `enable` has, the `submit` before it was refused.
      await opened.page.evaluate(() => (window as any).__checkout.enable());
      await frame.waitForFunction(() => !(document.getElementById('card-fields') as HTMLFieldSetElement).disabled);
      expect(await frame.locator('#card-form').getAttribute('aria-busy')).toBeNull();
      expect(opened.urls.filter((url) => url.endsWith('/tokens'))).toHaveLength(1);

      // Enabled again, the card typed before goes through.
      expect(await button.isEnabled()).toBe(true);
      await opened.page.evaluate(() => (window as any).__checkout.submit());
      await opened.page.waitForFunction(() => (window as any).__tokens.length === 2);
      await expectNoCardDataAtTheShop(opened);
    } finally {
      await opened.context.close();
    }
  });

  it('a page whose origin the session does not allow cannot frame the form: the browser refuses it', async () => {
    const session = await createSession(creds);
    // The same shop server, reached as http://127.0.0.1:<port>: another origin than the allowed http://localhost:<port>.
    const disallowed = `http://127.0.0.1:${shop.port}`;
    const before = await tokenCount();
    const opened = await openShop(session, { origin: disallowed, timeoutMs: 1500 });
    try {
      await opened.page.waitForFunction(() => (window as any).__errors.length > 0);
      // The API did serve the form, with a policy naming only the allowed origin...
      const frameUrl = `${api.origin}/checkout/frame/${session.sessionId}`;
      expect(opened.urls).toContain(frameUrl);
      const served = await fetch(frameUrl);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-security-policy')).toContain(`frame-ancestors ${shop.origin}`);
      // ...and the browser refused to show it: an error page instead of the form, and no message ever came.
      // (Chromium 156 logs "Framing '<API>' violates the following Content Security Policy directive:
      // "frame-ancestors <allowed>". The request has been blocked."; older ones said "Refused to frame".)
      const violation = opened.console.find((line) => line.includes(`frame-ancestors ${shop.origin}`));
      expect(violation, opened.console.join('\n')).toMatch(/blocked|Refused to frame/);
      const frame = opened.frame();
      expect(frame.url()).toBe('chrome-error://chromewebdata/');
      expect(await frame.locator('#number').count()).toBe(0);
      expect(await opened.page.evaluate(() => (window as any).__messages)).toEqual([]);
      expect(await opened.page.evaluate(() => (window as any).__errors)).toEqual([
        { code: 'frame_unavailable', detail: expect.stringContaining('allowedOrigins') },
      ]);
      expect(await tokenCount()).toBe(before);
    } finally {
      await opened.context.close();
    }
  });

  it('an invalid number is announced at its field as it is typed, and nothing is sent or stored', async () => {
    const session = await createSession(creds);
    const before = await tokenCount();
    const opened = await openShop(session);
    try {
      await waitReady(opened.page);
      const frame = opened.frame();
      await typeCard(frame, { number: '4242424242424241' });
      const number = frame.locator('#number');
      expect(await number.getAttribute('aria-invalid')).toBe('true');
      expect(await number.getAttribute('aria-describedby')).toContain('number-error');
      expect(await frame.locator('#number-error').getAttribute('aria-live')).toBe('polite');
      expect(await frame.locator('#number-error').textContent()).toBe(
        'This card number is not valid: check the digits.',
      );
      await opened.page.keyboard.press('Enter');
      // Focus goes back to the field at fault; the form tells how many fields need attention.
      await frame.waitForFunction(() => document.activeElement?.id === 'number');
      expect(await frame.locator('#form-status').textContent()).toBe('One field needs your attention.');
      // Fixed, the error goes away.
      await number.fill('');
      await number.pressSequentially(PAN);
      expect(await number.getAttribute('aria-invalid')).toBe('false');
      expect(await frame.locator('#number-error').textContent()).toBe('');
      // The expiry's separator comes and goes with the digits.
      const expiry = frame.locator('#expiry');
      await expiry.focus();
      await opened.page.keyboard.press('End');
      await opened.page.keyboard.press('Backspace');
      expect(await expiry.inputValue()).toBe('12 / 3');
      await opened.page.keyboard.press('Backspace');
      expect(await expiry.inputValue()).toBe('12');
      await opened.page.keyboard.type('3');
      expect(await expiry.inputValue()).toBe('12 / 3');
      await opened.page.keyboard.type('0');
      expect(await expiry.inputValue()).toBe('12 / 30');
      await expiry.fill('');
      await expiry.pressSequentially('1');
      await opened.page.keyboard.type('3');
      expect(await frame.locator('#expiry-error').textContent()).toBe('The month must be between 01 and 12.');
      expect(opened.urls.filter((url) => url.endsWith('/tokens'))).toEqual([]);
      expect(await tokenCount()).toBe(before);
      expect(await opened.page.evaluate(() => (window as any).__tokens)).toEqual([]);
      await expectNoCardDataAtTheShop(opened, '4242424242424241');
    } finally {
      await opened.context.close();
    }
  });

  it("a field the API refuses is shown at that field (the API's pointer), and nothing is stored", async () => {
    // The account's sandbox clock is five years on: the browser thinks 12/30 is good, the API judges it expired.
    const later = await stack.createAccount('Later Shop');
    await setClock(stack, later, new Date(Date.UTC(new Date().getUTCFullYear() + 5, 0, 1)));
    const session = await createSession(later);
    const before = await tokenCount();
    const opened = await openShop(session);
    try {
      await waitReady(opened.page);
      const frame = opened.frame();
      const expiry = `12${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, '0')}`;
      await typeCard(frame, { expiry });
      await opened.page.keyboard.press('Enter');
      await opened.page.waitForFunction(() => (window as any).__errors.length > 0);
      expect(await opened.page.evaluate(() => (window as any).__errors)).toEqual([
        { code: 'card_expired', detail: expect.stringContaining('expired'), field: 'expiry' },
      ]);
      expect(await frame.locator('#expiry').getAttribute('aria-invalid')).toBe('true');
      expect(await frame.locator('#expiry-error').textContent()).toBe('This card has expired.');
      await frame.waitForFunction(() => document.activeElement?.id === 'expiry');
      expect(await tokenCount()).toBe(before);
      await expectNoCardDataAtTheShop(opened);
    } finally {
      await opened.context.close();
    }
  });

  it('an expired session is refused in the form: on submitting, and on loading', async () => {
    const session = await createSession(creds);
    const before = await tokenCount();
    const opened = await openShop(session);
    try {
      await waitReady(opened.page);
      const frame = opened.frame();
      await typeCard(frame, {});
      await stack.sql`update checkout_sessions set expires_at = now() - interval '1 second' where id = ${session.sessionId}`;
      await opened.page.keyboard.press('Enter');
      await opened.page.waitForFunction(() => (window as any).__errors.length > 0);
      expect(await opened.page.evaluate(() => (window as any).__errors)).toEqual([
        { code: 'checkout_session_expired', detail: expect.stringContaining('expired') },
      ]);
      const alert = frame.getByRole('alert');
      expect(await alert.textContent()).toBe('This checkout session has expired. Reload the page to start again.');
      expect(await frame.locator('#number').isDisabled()).toBe(true);
      expect(await tokenCount()).toBe(before);
      await expectNoCardDataAtTheShop(opened);

      // Loaded once expired: the form says so at once, stays disabled, and the shop hears why.
      await opened.page.reload();
      await opened.page.waitForFunction(() => (window as any).__errors.length > 0);
      expect(await opened.page.evaluate(() => (window as any).__errors)).toEqual([
        { code: 'checkout_session_expired', detail: expect.stringContaining('expired') },
      ]);
      const reloaded = opened.frame();
      expect(await reloaded.getByRole('alert').textContent()).toContain('has expired');
      expect(await reloaded.locator('#number').isDisabled()).toBe(true);
      expect(await opened.page.evaluate(() => (window as any).__ready)).toBe(false);
    } finally {
      await opened.context.close();
    }
  });

  it('the form opened on its own (not framed) stays disabled and says where it belongs', async () => {
    const session = await createSession(creds);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const failed: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
      });
      page.on('console', (message) => {
        if (message.text().startsWith('Failed to load resource')) failed.push(message.text());
      });
      await page.goto(`${api.origin}/checkout/frame/${session.sessionId}`);
      expect(await page.getByRole('alert').textContent()).toBe('This card form works inside a checkout page only.');
      expect(await page.locator('#number').isDisabled()).toBe(true);
      // Its icon is inline: the browser asks the API for no /favicon.ico (a 404 in the console).
      expect(await page.locator('link[rel="icon"]').count()).toBe(1);
      expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/^data:image\/svg\+xml,/);
      await page.waitForLoadState('networkidle');
      expect(failed).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('3-D Secure through the embedded checkout, in chromium', () => {
  /**
   * The buyer types `number` in the form; the shop's server (the test) charges the token with `authentication`,
   * its `returnUrl` on the shop's origin; a payment that requires action is shown in checkout.js's modal, where the
   * buyer presses `button`; the shop learns the payment's id and status when the modal closes.
   */
  async function checkoutWith(number: string, button?: 'Complete' | 'Fail') {
    const session = await createSession(creds);
    const opened = await openShop(session);
    try {
      await waitReady(opened.page);
      await typeCard(opened.frame(), { number });
      await opened.page.keyboard.press('Enter');
      await opened.page.waitForFunction(() => (window as any).__tokens.length === 1);
      const [token] = await opened.page.evaluate(() => (window as any).__tokens);
      const paid = await createPayment(
        stack,
        creds,
        tokenv3Body({
          merchantId: merchant,
          tokenId: token.tokenId,
          expiry: '1230',
          attributes: { authentication: { mode: 'automatic', returnUrl: `${shop.origin}/return?order=9` } },
        }),
      );
      const payment = paid.body.data;
      if (payment.attributes.status !== 'requires_action') return { payment, done: null };
      const nextAction = payment.attributes.nextAction;
      // The challenge link is the API's public origin; the test's gateway serves it on its own port.
      nextAction.url = `${api.origin}${new URL(nextAction.url).pathname}${new URL(nextAction.url).search}`;
      const done = opened.page.evaluate(
        (action) => new Promise((resolve) => (window as any).handleNextAction(action, { onDone: resolve })),
        nextAction,
      );
      const modal = opened.page.frameLocator('dialog iframe');
      await modal.getByRole('button', { name: button ?? 'Complete' }).click();
      const answered = (await done) as { paymentId: string; status: string };
      expect(await opened.page.locator('dialog').count()).toBe(0);
      await expectNoCardDataAtTheShop(opened, number);
      return { payment, done: answered };
    } finally {
      await opened.context.close();
    }
  }

  it('challenge completed in the modal: the shop learns pending, and the modal is gone', async () => {
    const { payment, done } = await checkoutWith('4000002760003184');
    expect(done).toEqual({ paymentId: payment.id, status: 'pending' });
  });

  it('challenge failed in the modal: failed', async () => {
    const { payment, done } = await checkoutWith('4000002760003184', 'Fail');
    expect(done).toEqual({ paymentId: payment.id, status: 'failed' });
  });

  it('challenge completed, then declined: failed', async () => {
    const { done } = await checkoutWith('4000008400001629');
    expect(done?.status).toBe('failed');
  });

  it('frictionless and not enrolled: no modal, pending at once', async () => {
    for (const number of ['4000000000003055', PAN]) {
      const { payment, done } = await checkoutWith(number);
      expect(done).toBeNull();
      expect(payment.attributes.status).toBe('pending');
    }
  });
});
