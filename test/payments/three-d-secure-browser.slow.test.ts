import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardToken, createPayment, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import {
  accessibilityProblems,
  launchChromium,
  serveGateway,
  watchedPage,
} from '../gateway/console/console-page-check';
import { type Credentials, createTestStack, type TestStack } from '../harness';

/**
 * 3-D Secure end to end in a real browser (Debian's chromium): each sandbox card's payment made through the API with
 * a `returnUrl` on a shop server of the test's own (another origin), the challenge page opened as the cardholder's
 * browser is sent there, answered with its buttons, and the browser back on the shop's page with the payment's id
 * and status, which the API confirms. The page is checked with axe-core and must raise no CSP violation.
 */
let stack: TestStack;
let gateway: { origin: string; close: () => Promise<void> };
let shop: { server: Server; origin: string };
let browser: Browser;
let creds: Credentials;
let merchantId: string;

beforeAll(async () => {
  stack = await createTestStack();
  gateway = await serveGateway(stack);
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://shop');
    response.writeHead(url.pathname === '/done' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Order</h1>` +
        `<p id="payment">${url.searchParams.get('paymentId') ?? ''}</p></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  shop = { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
  [browser, { creds, merchantId }] = await Promise.all([
    launchChromium(),
    createWorld(stack, { account: 'Browser 3DS', token: false }),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (shop) await new Promise((resolve) => shop.server.close(resolve));
  await gateway?.close();
  await stack?.close();
});

async function payWith(number: string) {
  const tokenId = await createCardToken(stack, creds, number);
  const body = tokenv3Body({
    merchantId,
    tokenId,
    amount: '4200',
    attributes: { authentication: { mode: 'automatic', returnUrl: `${shop.origin}/done?order=7` } },
  });
  return (await createPayment(stack, creds, body)).body.data;
}

/** The cardholder's browser on the challenge page (on the served gateway's origin), pressing `button`. */
async function answerInBrowser(nextActionUrl: string, button: 'Complete' | 'Fail') {
  const { context, page, cspViolations } = await watchedPage(browser);
  try {
    const link = new URL(nextActionUrl);
    await page.goto(`${gateway.origin}${link.pathname}${link.search}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm your payment');
    expect(await page.getByText('$42.00 USD').count()).toBe(1);
    expect(await accessibilityProblems(page)).toEqual([]);
    // By keyboard, as a cardholder without a mouse: Complete is the first button, Fail the next.
    await page.getByRole('button', { name: 'Complete' }).focus();
    if (button === 'Fail') await page.keyboard.press('Tab');
    await Promise.all([page.waitForURL(`${shop.origin}/done?**`), page.keyboard.press('Enter')]);
    expect(cspViolations).toEqual([]);
    const back = new URL(page.url());
    return { search: Object.fromEntries(back.searchParams), shown: await page.locator('#payment').textContent() };
  } finally {
    await context.close();
  }
}

const get = async (id: string) => (await stack.call('GET', `/payments/${id}`, { as: creds })).body.data;

describe('3-D Secure through a returnUrl page, in chromium', () => {
  it('challenge completed: back on the shop with pending; authorized and captured', async () => {
    const payment = await payWith('4000002760003184');
    expect(payment.attributes.status).toBe('requires_action');
    const back = await answerInBrowser(payment.attributes.nextAction.url, 'Complete');
    expect(back.search).toEqual({ order: '7', paymentId: payment.id, status: 'pending' });
    expect(back.shown).toBe(payment.id);
    expect((await get(payment.id)).attributes.threeDSecure.result).toBe('authenticated');
  });

  it('challenge failed: back on the shop with failed, authentication_failed', async () => {
    const payment = await payWith('4000002760003184');
    const back = await answerInBrowser(payment.attributes.nextAction.url, 'Fail');
    expect(back.search).toEqual({ order: '7', paymentId: payment.id, status: 'failed' });
    expect((await get(payment.id)).attributes.transaction.code).toBe('authentication_failed');
  });

  it('challenge completed, then declined: back on the shop with failed, code 51', async () => {
    const payment = await payWith('4000008400001629');
    const back = await answerInBrowser(payment.attributes.nextAction.url, 'Complete');
    expect(back.search.status).toBe('failed');
    expect((await get(payment.id)).attributes.transaction.code).toBe('51');
  });

  it('frictionless and not enrolled: no page at all, authorized at once', async () => {
    const frictionless = await payWith('4000000000003055');
    expect(frictionless.attributes.status).toBe('pending');
    expect(frictionless.attributes.threeDSecure.flow).toBe('frictionless');
    const notEnrolled = await payWith('4242424242424242');
    expect(notEnrolled.attributes.status).toBe('pending');
    expect(notEnrolled.attributes.threeDSecure.result).toBe('not_enrolled');
  });

  it('the page of a used link says so, and has no form', async () => {
    const payment = await payWith('4000002760003184');
    await answerInBrowser(payment.attributes.nextAction.url, 'Complete');
    const { context, page } = await watchedPage(browser);
    const link = new URL(payment.attributes.nextAction.url);
    const response = await page.goto(`${gateway.origin}${link.pathname}${link.search}`);
    expect(response?.status()).toBe(404);
    expect(await page.getByRole('button').count()).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await context.close();
  });
});
