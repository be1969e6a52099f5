import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../fixtures/merchants';
import { createCardToken, createPayment, tokenv3Body } from '../../fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { checkPage, launchChromium, serveGateway, watchedPage } from './console-page-check';

/**
 * The console's Developers section in chromium, as an account's developer uses it: apps and keys; the events,
 * filtered by type, and one event with its payload and Redeliver; the request log filtered to the 400 a bad request
 * left, and that request with its bodies; then a new webhook endpoint made through the form, its signing secret
 * shown once; and the account's API version moved by keyboard alone, and back. Every page visited passes axe-core,
 * runs no script of a user string and breaks no rule of the Content-Security-Policy.
 */

const XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';

let stack: TestStack;
let stopServing: (() => Promise<void>) | undefined;
let origin: string;
let browser: Browser;
let acme: Credentials;
let paymentId: string;

beforeAll(async () => {
  stack = await createTestStack({ requestLog: true });
  ({ origin, close: stopServing } = await serveGateway(stack));
  [browser, acme] = await Promise.all([launchChromium(), stack.createAccount(`Acme ${XSS}`)]);
  const merchantId = await createMerchant(stack, acme, { accountName: `Shop ${XSS}` });
  const tokenId = await createCardToken(stack, acme);
  const paid = await createPayment(
    stack,
    acme,
    tokenv3Body({
      merchantId,
      tokenId,
      attributes: { transaction: { amount: '1200', currency: 'USD', invoice: XSS } },
    }),
  );
  paymentId = paid.body.data.id;
  // A bad request: a negative amount, its Idempotency-Key hostile.
  const refused = await stack.call('POST', '/payments', {
    as: acme,
    headers: { 'idempotency-key': XSS },
    body: tokenv3Body({ merchantId, tokenId, amount: '-5' }),
  });
  expect(refused.status).toBe(400);
  await stack.requestLog?.flush();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stopServing?.();
  await stack?.close();
});

describe('the console’s developers section in chromium', () => {
  it('shows apps, events, the request log, and makes a webhook endpoint', async () => {
    const { context, page, cspViolations } = await watchedPage(browser);

    await page.goto(`${origin}/console/sign-in`);
    await page.getByLabel('API key').fill(acme.apiKey);
    await Promise.all([page.waitForURL(`${origin}/console`), page.getByRole('button', { name: 'Sign in' }).click()]);
    const nav = page.getByRole('navigation', { name: 'Console' });

    // Apps and keys: the app, and no key.
    await Promise.all([
      page.waitForURL(/\/console\/developers$/),
      nav.getByRole('link', { name: 'Apps and keys' }).click(),
    ]);
    await checkPage(page, cspViolations);
    const apps = page.getByRole('table', { name: 'Apps of this account, oldest first' });
    expect(await apps.locator('tbody th').allTextContents()).toEqual([acme.appId]);
    expect(await page.content()).not.toContain(acme.apiKey);

    // Events: filter by type, open the payment's, see its payload as text, ask to redeliver it.
    await Promise.all([page.waitForURL(/\/console\/events$/), nav.getByRole('link', { name: 'Events' }).click()]);
    await checkPage(page, cspViolations);
    await page.getByLabel('Type').selectOption('payment.created');
    await Promise.all([page.waitForURL(/type=payment\.created/), page.getByRole('button', { name: 'Filter' }).click()]);
    await checkPage(page, cspViolations);
    const events = page.getByRole('table', { name: 'Events, newest first' });
    expect(new Set(await events.locator('tbody td:nth-child(2)').allTextContents())).toEqual(
      new Set(['payment.created']),
    );
    await Promise.all([page.waitForURL(/\/console\/events\/evt_\w+$/), events.locator('tbody th a').first().click()]);
    await checkPage(page, cspViolations);
    const payload = await page.getByRole('region', { name: 'Payload of the event' }).textContent();
    expect(JSON.parse(payload ?? '')).toMatchObject({ data: { id: paymentId } });
    expect(payload).toContain(JSON.stringify(XSS));
    expect(await page.getByRole('link', { name: paymentId }).getAttribute('href')).toBe(
      `/console/payments/${paymentId}`,
    );
    await Promise.all([page.waitForURL(/\/redeliver$/), page.getByRole('button', { name: 'Redeliver…' }).click()]);
    await checkPage(page, cspViolations);
    await Promise.all([
      page.waitForURL(/done=redelivered/),
      page.getByRole('button', { name: 'Confirm redelivery' }).click(),
    ]);
    await checkPage(page, cspViolations);
    expect(await page.getByRole('status').textContent()).toBe('No endpoint takes this event: nothing was redelivered.');

    // The request log: filter to status 400, open the bad request, see its bodies.
    await Promise.all([
      page.waitForURL(/\/console\/requests$/),
      nav.getByRole('link', { name: 'Request log' }).click(),
    ]);
    await checkPage(page, cspViolations);
    await page.getByLabel('Status').fill('400');
    await Promise.all([page.waitForURL(/status=400/), page.getByLabel('Status').press('Enter')]);
    await checkPage(page, cspViolations);
    const requests = page.getByRole('table', { name: 'Requests, newest first' });
    expect(await requests.locator('tbody tr').count()).toBe(1);
    expect(await requests.locator('tbody td').allTextContents()).toEqual(
      expect.arrayContaining(['POST', '/payments', '400', XSS]),
    );
    await Promise.all([page.waitForURL(/\/console\/requests\/req_\w+$/), requests.locator('tbody th a').click()]);
    await checkPage(page, cspViolations);
    const requestBody = await page.getByRole('region', { name: 'Request body (JSON)' }).textContent();
    expect(JSON.parse(requestBody ?? '')).toMatchObject({ data: { attributes: { transaction: { amount: '-5' } } } });
    const responseBody = await page.getByRole('region', { name: 'Response body (JSON)' }).textContent();
    expect(JSON.parse(responseBody ?? '').errors[0].status).toBe('400');

    // A new webhook endpoint: the form, then the endpoint's page, which never shows its signing secret.
    await Promise.all([page.waitForURL(/\/console\/webhooks$/), nav.getByRole('link', { name: 'Webhooks' }).click()]);
    await checkPage(page, cspViolations);
    await Promise.all([
      page.waitForURL(/\/console\/webhooks\/new$/),
      page.getByRole('link', { name: 'New endpoint' }).click(),
    ]);
    await checkPage(page, cspViolations);
    await page.getByLabel('URL').fill('https://example.com/hooks/from-the-console');
    await page.getByLabel('payment.created').check();
    await page.getByLabel('payout.failed').check();
    await page.getByLabel('Description').fill(XSS);
    await Promise.all([
      page.waitForURL(/\/console\/webhooks\/whk_[^/]+\?done=created$/),
      page.getByRole('button', { name: 'Create endpoint' }).click(),
    ]);
    await checkPage(page, cspViolations);
    const [row] = await stack.sql`
      select id, events, description from webhook_endpoints where url = 'https://example.com/hooks/from-the-console'`;
    expect(row).toMatchObject({ events: ['payment.created', 'payout.failed'], description: XSS });
    expect(new URL(page.url()).pathname).toBe(`/console/webhooks/${row!.id}`);
    expect(await page.getByRole('status').textContent()).toBe('Endpoint created.');
    expect(await page.content()).not.toContain('whsec_');
    expect(await page.locator('dl.fields').textContent()).toContain(XSS);
    await context.close();
  });

  it('moves the API version by keyboard alone, and back', async () => {
    const { context, page, cspViolations } = await watchedPage(browser);
    await page.goto(`${origin}/console/sign-in`);
    await page.getByLabel('API key').fill(acme.apiKey);
    await Promise.all([page.waitForURL(`${origin}/console`), page.getByLabel('API key').press('Enter')]);
    const version = page.getByLabel('Version', { exact: true });
    const pin = async () =>
      (await stack.sql`select api_version from accounts where id = ${acme.accountId}`)[0]?.api_version;
    // Newest first in the list: the older version is one down, the newest one up.
    for (const [key, target] of [
      ['ArrowDown', '2026-11-21'],
      ['ArrowUp', '2026-11-29'],
    ] as const) {
      await page.goto(`${origin}/console/developers`);
      await version.focus();
      await page.keyboard.press(key);
      expect(await version.inputValue()).toBe(target);
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Change version');
      await Promise.all([page.waitForURL(/\/console\/developers\?done=version$/), page.keyboard.press('Enter')]);
      await checkPage(page, cspViolations);
      expect(await page.getByRole('status').textContent()).toBe(`The API version is now ${target}.`);
      expect(await pin()).toBe(target);
    }
    await context.close();
  });
});
