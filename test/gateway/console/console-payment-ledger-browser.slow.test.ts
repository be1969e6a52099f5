import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureBody, createPayment, refundBody, tokenv3Body } from '../../fixtures/payments';
import { type Receiver, startReceiver } from '../../fixtures/receiver';
import { createWorld } from '../../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { waitFor } from '../../wait';
import { checkPage, launchChromium, serveGateway, watchedPage } from './console-page-check';

/**
 * The payment page's "Ledger postings" and "Webhook deliveries" in a real browser (Debian's chromium, driven by
 * playwright-core): a captured, partly refunded payment whose events went to two endpoints, one with a URL that is a
 * script. The page passes axe-core, runs no script of a user string and breaks no rule of the CSP; its tables are
 * found by their names, the endpoint's link leads to its page.
 */

const XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';

let stack: TestStack;
let receiver: Receiver;
let stopServing: (() => Promise<void>) | undefined;
let origin: string;
let browser: Browser;
let acme: Credentials;
let paymentId: string;
let hostile: string;

beforeAll(async () => {
  receiver = await startReceiver();
  stack = await createTestStack({ webhooks: true, env: { OUTBOX_POLL_INTERVAL_MS: '200' } });
  ({ origin, close: stopServing } = await serveGateway(stack));
  const [launched, world] = await Promise.all([launchChromium(), createWorld(stack, { account: `Acme ${XSS}` })]);
  browser = launched;
  acme = world.creds;
  const subscribe = async (url: string) =>
    (
      await stack.call('POST', '/webhooks', {
        as: acme,
        body: { data: { type: 'webhooks', attributes: { url, events: ['*'], description: XSS } } },
      })
    ).body.data.id as string;
  await subscribe(receiver.url('/ok'));
  hostile = await subscribe(receiver.url(`/hostile?x=${XSS}`));
  const authorization = tokenv3Body({
    merchantId: world.merchantId,
    tokenId: world.tokenId,
    amount: '10000',
    attributes: { capture: false },
  });
  paymentId = (await createPayment(stack, acme, authorization)).body.data.id;
  await createPayment(stack, acme, captureBody(paymentId, '6000'));
  await createPayment(stack, acme, refundBody(paymentId, '1000'));
  await waitFor(
    () => stack.sql`
      select d.status from webhook_deliveries d join events e on e.id = d.event_id where e.resource_id = ${paymentId}`,
    {
      // authorized, captured, partially refunded: each to both endpoints.
      until: (rows) => rows.length === 6 && rows.every((row) => row.status === 'succeeded'),
      what: "the payment's events delivered to both endpoints",
      timeoutMs: 30_000,
    },
  );
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stopServing?.();
  await stack?.close();
  await receiver?.close();
});

describe('the payment page’s ledger and deliveries in chromium', () => {
  it('shows the postings with their totals and the deliveries, accessible, no script of a user string', async () => {
    const { context, page, cspViolations } = await watchedPage(browser);
    await page.goto(`${origin}/console/sign-in`);
    await page.getByLabel('API key').fill(acme.apiKey);
    await Promise.all([
      page.waitForURL((url) => !url.pathname.endsWith('/sign-in')),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);

    await page.goto(`${origin}/console/payments/${paymentId}`);
    await checkPage(page, cspViolations);
    const ledger = page.getByRole('table', {
      name: 'Ledger entries in posting order, each posting followed by its total',
    });
    // The capture's three entries and its total, the refund's two and its total.
    expect(await ledger.locator('tbody tr').count()).toBe(7);
    const totals = ledger.locator('tbody tr', { hasText: 'Total of' });
    expect(await totals.locator('td strong').allTextContents()).toEqual(['$0.00', '$0.00']);
    expect(await page.locator('section[aria-labelledby="ledger"] p.help').textContent()).toBe(
      "2 postings, 5 entries; each posting's entries sum to $0.00.",
    );

    const deliveries = page.getByRole('table', {
      name: "Deliveries of this payment's events to your webhook endpoints, oldest event first",
    });
    expect(await deliveries.locator('tbody tr').count()).toBe(6);
    expect(await deliveries.locator('tbody').textContent()).toContain(`/hostile?x=${XSS}`);
    const link = deliveries.getByRole('link', { name: receiver.url(`/hostile?x=${XSS}`) }).first();
    await Promise.all([page.waitForURL(new RegExp(`/console/webhooks/${hostile}$`)), link.click()]);
    await checkPage(page, cspViolations);
    await context.close();
  });
});
