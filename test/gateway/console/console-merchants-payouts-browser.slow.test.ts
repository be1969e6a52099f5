import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { checkPage, launchChromium, serveGateway, watchedPage } from './console-page-check';
import { payoutsWorld } from './console-payouts-world';

/**
 * The console's Merchants and Payouts sections in chromium, by clicks alone: the merchants list, a merchant (its
 * name a script) whose payout schedule is changed through the form (a refusal first, shown beside its field, then a
 * weekly schedule saved), the payouts list and a payout with its reconciliation, and back to its merchant. Every page
 * visited passes axe-core, runs no script of a user string and breaks no rule of the Content-Security-Policy.
 */

const XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';

let stack: TestStack;
let stopServing: (() => Promise<void>) | undefined;
let origin: string;
let browser: Browser;
let acme: Credentials;
let world: Awaited<ReturnType<typeof payoutsWorld>>;

beforeAll(async () => {
  stack = await createTestStack();
  ({ origin, close: stopServing } = await serveGateway(stack));
  [browser, acme] = await Promise.all([launchChromium(), stack.createAccount(`Acme ${XSS}`)]);
  world = await payoutsWorld(stack, acme, { shopName: `Shop ${XSS}`, returned: false });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stopServing?.();
  await stack?.close();
});

const scheduleOf = async (merchantId: string) =>
  (await stack.call('GET', `/merchants/${merchantId}`, { as: acme })).body.data.attributes.payoutSchedule;

describe('the console’s merchants and payouts in chromium', () => {
  it('shows the merchants and payouts, and changes a payout schedule by clicks', async () => {
    const { context, page, cspViolations } = await watchedPage(browser);
    const nav = page.getByRole('navigation', { name: 'Console' });
    await page.goto(`${origin}/console/sign-in`);
    await page.getByLabel('API key').fill(acme.apiKey);
    await Promise.all([
      page.waitForURL((url) => !url.pathname.endsWith('/sign-in')),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);

    // Merchants: the list, then the merchant by its name (a script, shown as text).
    await Promise.all([page.waitForURL(/\/console\/merchants$/), nav.getByRole('link', { name: 'Merchants' }).click()]);
    await checkPage(page, cspViolations);
    const merchants = page.getByRole('table', { name: 'Merchants, newest first' });
    expect(await merchants.locator('tbody th a').allTextContents()).toEqual([`Shop ${XSS}`]);
    await Promise.all([
      page.waitForURL(new RegExp(`/console/merchants/${world.shopId}$`)),
      merchants.getByRole('link', { name: `Shop ${XSS}` }).click(),
    ]);
    await checkPage(page, cspViolations);
    expect(await page.locator('h1').textContent()).toBe(`Shop ${XSS}`);
    const latest = page.getByRole('table', { name: 'Latest payouts of this merchant, newest first' });
    expect(await latest.locator('tbody th a').allTextContents()).toEqual([world.shopPayoutId]);
    const transactions = page.getByRole('table', { name: 'Balance transactions, newest first' });
    expect(await transactions.locator('tbody tr').count()).toBe(3);

    // The schedule: monthly without its day is refused, the error beside the field; then weekly on Friday saved.
    await page.getByLabel('Interval').selectOption('monthly');
    await Promise.all([
      page.waitForURL(/\/payout-schedule$/),
      page.getByRole('button', { name: 'Save schedule' }).click(),
    ]);
    await checkPage(page, cspViolations);
    expect(await page.getByRole('alert').textContent()).toBe('The payout schedule was not saved. See the form below.');
    const day = page.getByLabel('Day of the month');
    expect(await day.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#schedule-monthlyAnchor-error').textContent()).toBe(
      'monthlyAnchor is required when interval is monthly',
    );
    expect(await scheduleOf(world.shopId)).toMatchObject({ interval: 'daily' });

    await page.getByLabel('Interval').selectOption('weekly');
    await page.getByLabel('Weekday').selectOption('friday');
    await Promise.all([page.waitForURL(/done=schedule$/), page.getByRole('button', { name: 'Save schedule' }).click()]);
    await checkPage(page, cspViolations);
    expect(await page.getByRole('status').textContent()).toBe(
      'Payout schedule saved: Weekly on Friday, as soon as the money is available.',
    );
    expect(await scheduleOf(world.shopId)).toEqual({
      interval: 'weekly',
      weeklyAnchor: 'friday',
      monthlyAnchor: null,
      delayDays: 0,
    });

    // Payouts: the list, then the payout with its trace number and reconciliation, then back to its merchant.
    await Promise.all([page.waitForURL(/\/console\/payouts$/), nav.getByRole('link', { name: 'Payouts' }).click()]);
    await checkPage(page, cspViolations);
    const payouts = page.getByRole('table', { name: 'Payouts, newest first' });
    expect(await payouts.locator('tbody th a').allTextContents()).toEqual([world.shopPayoutId]);
    await Promise.all([
      page.waitForURL(new RegExp(`/console/payouts/${world.shopPayoutId}$`)),
      payouts.getByRole('link', { name: world.shopPayoutId }).click(),
    ]);
    await checkPage(page, cspViolations);
    const payout = (await stack.call('GET', `/payouts/${world.shopPayoutId}`, { as: acme })).body.data.attributes;
    expect(await page.locator('dl.fields').textContent()).toContain(`Trace number${payout.traceNumber}`);
    const reconciliation = page.getByRole('table', {
      name: `Reconciliation of ${world.shopPayoutId}, oldest first, then the totals`,
    });
    // The two payments carried, then the totals.
    expect(await reconciliation.locator('tbody tr').count()).toBe(3);
    expect(await reconciliation.locator('tbody tr').last().locator('th').textContent()).toBe('Total of 2 items');
    await Promise.all([
      page.waitForURL(new RegExp(`/console/merchants/${world.shopId}$`)),
      page
        .locator('dl.fields')
        .getByRole('link', { name: `Shop ${XSS}` })
        .click(),
    ]);
    await checkPage(page, cspViolations);
    await context.close();
  });
});
