import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStack, type TestStack } from '../../harness';
import { waitFor } from '../../wait';
import { CUSTOMER_ACCOUNT_NUMBER, operatorWorld } from './console-operator-world';
import { checkPage, launchChromium, serveGateway, watchedPage } from './console-page-check';

/**
 * The operator's console pages in chromium: sign in with the admin token, read Health (its charts drawn by the
 * console's script with uPlot, its tables there for readers without script), open the ACH files and one file and
 * download it, and read an account's settlement report. Every page passes axe-core, runs no script of a user string
 * and breaks no rule of the Content-Security-Policy.
 */

let stack: TestStack;
let stopServing: (() => Promise<void>) | undefined;
let origin: string;
let browser: Browser;
let acme: Awaited<ReturnType<typeof operatorWorld>>;

beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
  ({ origin, close: stopServing } = await serveGateway(stack));
  [browser, acme] = await Promise.all([launchChromium(), operatorWorld(stack, 'Acme <b>Bold</b>')]);
  // Settlement's maintenance worker takes the first sample as it starts.
  await waitFor(() => stack.sql`select 1 from health_samples limit 1`, {
    until: (rows) => rows.length === 1,
    what: 'a health sample',
    timeoutMs: 30_000,
  });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stopServing?.();
  await stack?.close();
});

describe('the operator’s console pages in chromium', () => {
  it('shows health with drawn charts, the ACH files and a file, and a settlement report', async () => {
    const { context, page, cspViolations } = await watchedPage(browser, { acceptDownloads: true });

    await page.goto(`${origin}/console/sign-in`);
    await page.getByLabel('API key').fill(stack.config.ADMIN_TOKEN);
    await Promise.all([page.waitForURL(/\/console\/accounts$/), page.getByRole('button', { name: 'Sign in' }).click()]);

    // Health: each role, each queue, and three charts drawn on canvases, their figures in tables beside them.
    await Promise.all([page.waitForURL(/\/console\/health$/), page.getByRole('link', { name: 'Health' }).click()]);
    await checkPage(page, cspViolations);
    const roles = page.getByRole('table', { name: "Each process role's health, now" });
    expect(await roles.locator('tbody th').allTextContents()).toEqual([
      'gateway',
      'payments',
      'merchants',
      'settlement',
      'webhooks',
    ]);
    const queues = page.getByRole('table', { name: 'Each queue, now' });
    expect(await queues.locator('tbody th').allTextContents()).toEqual(['maintenance', 'settlement']);
    await page.waitForFunction(() => document.querySelectorAll('figure.chart canvas').length === 3);
    const drawn = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLCanvasElement>('figure.chart canvas')].map((canvas) => {
        const blank = document.createElement('canvas');
        blank.width = canvas.width;
        blank.height = canvas.height;
        return canvas.width > 0 && canvas.toDataURL() !== blank.toDataURL();
      }),
    );
    expect(drawn).toEqual([true, true, true]);
    expect(await page.locator('figure.chart table caption').count()).toBe(3);
    expect(await page.locator('figure.chart [data-chart]').first().getAttribute('aria-hidden')).toBe('true');

    // ACH files: the list, one file by its entries, and its download.
    await Promise.all([
      page.waitForURL(/\/console\/ach-files$/),
      page.getByRole('link', { name: 'ACH files' }).click(),
    ]);
    await checkPage(page, cspViolations);
    await Promise.all([
      page.waitForURL(new RegExp(`/console/ach-files/${acme.fileId}$`)),
      page.getByRole('link', { name: acme.fileId }).click(),
    ]);
    await checkPage(page, cspViolations);
    const entries = page.getByRole('table', { name: `Entries of ${acme.fileId}, in file order` });
    expect(await entries.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('main').textContent()).not.toContain(CUSTOMER_ACCOUNT_NUMBER);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the NACHA file' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${acme.fileId}.ach`);
    const stream = await download.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const content = Buffer.concat(chunks).toString('ascii');
    expect(content.split('\n')[0]).toMatch(/^101 /);
    expect(content).toContain(CUSTOMER_ACCOUNT_NUMBER);

    // Settlement reports: pick the account and the day; the report's table ends with the total.
    await Promise.all([
      page.waitForURL(/\/console\/settlement-reports$/),
      page.getByRole('link', { name: 'Settlement reports' }).click(),
    ]);
    await checkPage(page, cspViolations);
    await page.getByLabel('Account').selectOption(acme.creds.accountId);
    await page.getByLabel('Settlement day').fill(acme.day);
    await Promise.all([
      page.waitForURL(/\/console\/settlement-reports\?account=/),
      page.getByRole('button', { name: 'Show report' }).click(),
    ]);
    await checkPage(page, cspViolations);
    const report = page.getByRole('table', {
      name: `Settlement of Acme <b>Bold</b> on ${acme.day}, per merchant, then the total`,
    });
    expect(await report.locator('tbody th').allTextContents()).toEqual([acme.merchantId, 'Total']);
    const api = await stack.call('GET', `/reports/settlement?date=${acme.day}`, { as: acme.creds });
    const net = Number(api.body.data.attributes.totals.net) / 100;
    expect(await report.locator('tbody tr').last().locator('td').nth(4).textContent()).toBe(`$${net.toFixed(2)}`);
    await context.close();
  });
});
