import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../fixtures/merchants';
import { cards, createCardToken, createPayment, tokenv3Body } from '../../fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { checkPage, launchChromium, serveGateway, watchedPage } from './console-page-check';

/**
 * The console in a real browser (Debian's chromium, driven by playwright-core), as an account's developer uses it:
 * sign in by keyboard, filter payments by card and by customer, open one, refund part of it and see the refund,
 * export the list as CSV and read it back, sign out. axe-core, injected into every page the test visits, must find
 * no serious or critical violation.
 */

const XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';

let stack: TestStack;
let stopServing: (() => Promise<void>) | undefined;
let origin: string;
let browser: Browser;
let acme: Credentials;
let merchantId: string;
/** The payment paid by the customer with an email, on a Mastercard (last 4: 4444); and one on a Visa, no customer. */
let customerPayment: string;
let visaPayment: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({ origin, close: stopServing } = await serveGateway(stack));
  [browser, acme] = await Promise.all([launchChromium(), stack.createAccount(`Acme ${XSS}`)]);
  merchantId = await createMerchant(stack, acme, { accountName: `Shop ${XSS}` });
  const customer = await stack.call('POST', '/customers', {
    as: acme,
    body: { data: { type: 'customers', attributes: { name: 'Ada', email: 'ada@example.com' } } },
  });
  const customerToken = await stack.call('POST', '/tokens', {
    as: acme,
    body: {
      data: {
        type: 'tokens',
        attributes: {
          tokenType: 'card',
          customerId: customer.body.data.id,
          card: { holder: 'Ada', number: cards.mastercard, expiry: '1230', code: '123' },
        },
      },
    },
  });
  const body = (tokenId: string, invoice: string) =>
    tokenv3Body({ merchantId, tokenId, attributes: { transaction: { amount: '1000', currency: 'USD', invoice } } });
  customerPayment = (await createPayment(stack, acme, body(customerToken.body.data.id, XSS))).body.data.id;
  visaPayment = (await createPayment(stack, acme, body(await createCardToken(stack, acme), 'INV-VISA'))).body.data.id;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stopServing?.();
  await stack?.close();
});

describe('the console in chromium', () => {
  it('signs in by keyboard, filters, refunds, exports and signs out', async () => {
    const { context, page, cspViolations } = await watchedPage(browser, { acceptDownloads: true });

    // Sign in with the keyboard alone: Tab to the field labelled "API key", type, Tab to "Sign in", Enter.
    await page.goto(`${origin}/console`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await checkPage(page, cspViolations);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key');
    await page.keyboard.type(acme.apiKey);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sign in');
    // Home: the last 30 days drawn by uPlot (the figures' table under it), the balances, what needs attention.
    await Promise.all([page.waitForURL(`${origin}/console`), page.keyboard.press('Enter')]);
    await page.locator('.chart-canvas canvas').waitFor();
    expect(await page.locator('.chart-canvas .u-legend').textContent()).toContain('Approved volume');
    await checkPage(page, cspViolations);
    await page.getByRole('link', { name: 'Payments', exact: true }).click();
    await page.waitForURL(`${origin}/console/payments`);
    await checkPage(page, cspViolations);
    expect(await page.locator('tbody tr').count()).toBe(2);

    // The filters by keyboard: Tab reaches each labelled control in order, Card last 4 takes the digits.
    // A date field takes a Tab for each of its parts (month, day, year): each control is counted once.
    const order: string[] = [];
    await page.locator('#status').focus();
    for (let step = 0; step < 30 && order.at(-1) !== 'email'; step++) {
      const id = await page.evaluate(() => document.activeElement?.id ?? '');
      if (order.at(-1) !== id) order.push(id);
      await page.keyboard.press('Tab');
    }
    expect(order).toEqual([
      'status',
      'type',
      'merchant',
      'createdFrom',
      'createdTo',
      'amountFrom',
      'amountTo',
      'invoice',
      'last4',
      'email',
    ]);
    await page.locator('#last4').fill('4444');
    await Promise.all([page.waitForURL(/last4=4444/), page.locator('#last4').press('Enter')]);
    await checkPage(page, cspViolations);
    expect(await page.locator('tbody th a').allTextContents()).toEqual([customerPayment]);

    await page.goto(`${origin}/console/payments?email=${encodeURIComponent('ADA@example.com')}`);
    expect(await page.locator('tbody th a').allTextContents()).toEqual([customerPayment]);
    expect(await page.locator('tbody').textContent()).toContain(XSS.slice(0, 20));
    await page.goto(`${origin}/console/payments?last4=1111`);
    expect(await page.locator('tbody th a').allTextContents()).toEqual([visaPayment]);

    // Open the customer's payment and refund $2.50 of it: a confirmation, then the refund in its records and timeline.
    await page.goto(`${origin}/console/payments?last4=4444`);
    await Promise.all([
      page.waitForURL(new RegExp(`/console/payments/${customerPayment}$`)),
      page.locator('tbody th a').click(),
    ]);
    await checkPage(page, cspViolations);
    await page.getByLabel('Refund amount (USD)').fill('2.50');
    await Promise.all([page.waitForURL(/\/refund$/), page.getByRole('button', { name: 'Refund…' }).click()]);
    await checkPage(page, cspViolations);
    expect(await page.locator('h1').textContent()).toBe(`Refund $2.50 of ${customerPayment}?`);
    await Promise.all([page.waitForURL(/done=refund/), page.getByRole('button', { name: 'Confirm refund' }).click()]);
    await checkPage(page, cspViolations);
    expect(await page.getByRole('status').textContent()).toMatch(/^Refund recorded: pay_/);
    const refunds = page.getByRole('table', { name: 'Refunds and voids of this payment, oldest first' });
    expect(await refunds.locator('tbody tr').count()).toBe(1);
    expect(await refunds.locator('tbody').textContent()).toContain('$2.50');
    expect(await page.locator('ol.timeline').textContent()).toContain('payment.partially_refunded');

    // Export the filtered list as CSV and read it back.
    await page.goto(`${origin}/console/payments?last4=4444`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path()) as string, 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toBe('id,createdAt,paymentType,status,amount,currency,invoice,merchantId');
    // The list holds every record of the card, its refund (a child with the parent's card) included.
    const rows = csv.slice(1).map((line) => line.split(','));
    expect(rows.map((row) => [row[2], row[4]])).toEqual([
      ['refund', '250'],
      ['card', '1000'],
    ]);
    expect(rows[1]?.slice(0, 1)).toEqual([customerPayment]);
    expect(rows[1]?.[3]).toBe('partial_refund');

    // Sign out: the session is gone on the server, so the pages send the browser back to sign in.
    await Promise.all([page.waitForURL(/sign-in$/), page.getByRole('button', { name: 'Sign out' }).click()]);
    expect(await stack.sql`select 1 from console_sessions where account_id = ${acme.accountId}`).toHaveLength(0);
    await page.goto(`${origin}/console/payments/${customerPayment}`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await context.close();
  });
});
