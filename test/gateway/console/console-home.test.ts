import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cards, createCardToken, createPayment, setClock, tokenv3Body } from '../../fixtures/payments';
import { createWorld } from '../../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { consoleClient } from './console-client';

/**
 * The console's home page, in-process: the last 30 days (the chart's figures and their table), the approval rate,
 * the balances summed over merchants, and "Needs attention" (a disabled endpoint, an authorization about to expire),
 * each from the API; and an operator has no home of an account.
 */

const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const DAY_MS = 86_400_000;

let stack: TestStack;
let acme: Credentials;
let authorization: string;
let endpoint: string;

beforeAll(async () => {
  stack = await createTestStack({ webhooks: true });
  const world = await createWorld(stack);
  acme = world.creds;
  const { merchantId, tokenId } = world;
  // A day ago by acme's clock: an authorization (capture: false) that expires 7 days after it was made.
  authorization = (
    await createPayment(
      stack,
      acme,
      tokenv3Body({ merchantId, tokenId, amount: '7000', attributes: { capture: false } }),
    )
  ).body.data.id;
  // Six and a half days later: two payments of the day, one declined; the authorization expires within a day.
  await setClock(stack, acme, new Date(Date.now() + 6.5 * DAY_MS));
  await createPayment(stack, acme, tokenv3Body({ merchantId, tokenId, amount: '1250' }));
  const declined = await createCardToken(stack, acme, cards.doNotHonor);
  await createPayment(stack, acme, tokenv3Body({ merchantId, tokenId: declined, amount: '500' }), 402);
  const created = await stack.call('POST', '/webhooks', {
    as: acme,
    body: {
      data: { type: 'webhooks', attributes: { url: `https://example.com/h?x=${XSS}`, events: ['payment.created'] } },
    },
  });
  endpoint = created.body.data.id;
  await stack.call('PUT', `/webhooks/${endpoint}`, {
    as: acme,
    body: { data: { type: 'webhooks', attributes: { enabled: false } } },
  });
}, 60_000);
afterAll(() => stack?.close());

async function home(as: Credentials) {
  const browser = consoleClient(stack);
  expect((await browser.signIn(as.apiKey)).headers.get('location')).toBe('/console');
  return browser.get('/console');
}

describe('the console’s home page', () => {
  it('shows the 30 days’ volume, count and approval rate, with the chart’s figures as a table', async () => {
    const page = await home(acme);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Home</h1>');
    // 7000 (authorized) + 1250 approved, 500 declined: 3 payments, 2 approved.
    expect(page.text).toMatch(/<dt>Approved volume<\/dt><dd>\$82\.50<\/dd>/);
    expect(page.text).toMatch(/<dt>Payments<\/dt><dd>3<\/dd>/);
    expect(page.text).toMatch(/<dt>Approval rate<\/dt><dd>66\.7%<\/dd>/);
    const chart = /data-chart="([^"]*)"/.exec(page.text)?.[1] ?? '';
    const figures = JSON.parse(chart.replaceAll('&quot;', '"'));
    expect(figures.x).toHaveLength(30);
    expect(figures.series.map((line: { label: string }) => line.label)).toEqual(['Approved volume', 'Payments']);
    expect(figures.series[0].values.reduce((a: number, b: number) => a + b, 0)).toBe(8250);
    expect(figures.series[1].values.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    expect(page.text).toContain('<caption>Approved volume and payments per day</caption>');
    expect(page.text).toContain('/console/assets/uPlot.min.js');
  });

  it('shows the balances summed over the merchants, as the API does', async () => {
    const balance = (await stack.call('GET', '/balance', { as: acme })).body.data.attributes;
    expect(balance.pending).toBe('1184'); // 1250 less its fee (2.9% + 30¢)
    const page = await home(acme);
    expect(page.text).toMatch(/<dt>Pending<\/dt><dd>\$11\.84<\/dd>/);
  });

  it('lists the disabled endpoint (its URL as text) and the authorization expiring within a day', async () => {
    const page = await home(acme);
    const attention = page.text.slice(page.text.indexOf('Needs attention'));
    expect(attention).toContain(`href="/console/webhooks/${endpoint}"`);
    expect(attention).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.toContain('<script>alert(1)');
    expect(attention).toContain(`href="/console/payments/${authorization}"`);
    expect(attention).toContain('No dispute needs a response.');
    expect(attention).toContain('No payout failed.');
  });

  it('sends an operator to the accounts', async () => {
    const browser = consoleClient(stack);
    await browser.signIn(stack.config.ADMIN_TOKEN);
    const page = await browser.get('/console');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/console/accounts');
  });
});
