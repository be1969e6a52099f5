import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** The demo shop's page in chromium, as a buyer uses it (demo.slow.test.ts, demo-start.slow.test.ts). */

export const VISA = '4242424242424242';
export const DECLINED = '4000000000000002';
export const MASTERCARD = '5555555555554444';

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });

/** Records every text a document shows (each mutation's `innerText`), in the shop's page and in the card form. */
function recordTexts() {
  const seen: string[] = [];
  (window as any).__texts = seen;
  const record = () => {
    const text = document.body?.innerText;
    if (text && seen[seen.length - 1] !== text) seen.push(text);
  };
  new MutationObserver(record).observe(document, { subtree: true, childList: true, characterData: true });
}

export async function newContext(browser: Browser) {
  const context = await browser.newContext();
  await context.addInitScript(recordTexts);
  return context;
}

export type Opened = { page: Page; failures: string[] };

/**
 * Opens `url` in `context`: `failures` collects every response of 400 or more and every resource the browser says it
 * failed to load (a favicon's 404 is only in the console: the browser asks for it, not the page).
 */
export async function open(context: BrowserContext, url: string): Promise<Opened> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const failures: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failures.push(`${response.status()} ${new URL(response.url()).pathname}`);
  });
  page.on('console', (message) => {
    if (message.text().startsWith('Failed to load resource')) failures.push(message.text());
  });
  await page.goto(url);
  return { page, failures };
}

export const cardForm = (page: Page) => page.frameLocator('iframe');
export const payButton = (page: Page) => cardForm(page).getByRole('button', { name: 'Pay $10.00' });

export async function typeCard(page: Page, number: string) {
  const form = cardForm(page);
  await payButton(page).waitFor();
  const holder = form.getByLabel('Name on card');
  if ((await holder.inputValue()) === '') await holder.fill('Jane Buyer');
  await form.getByLabel('Card number').pressSequentially(number);
  await form.getByLabel('Expiry date').pressSequentially('1230');
  await form.getByLabel('Security code').pressSequentially('123');
}

/** What the buyer reads: the shop's page and, while it is there, the card form, now. */
export const shownText = async (page: Page) =>
  [
    await page.locator('body').innerText(),
    ...((await page.locator('iframe').count()) > 0 ? [await cardForm(page).locator('body').innerText()] : []),
  ].join('\n');

/** Every text the shop's page and the card form showed since they loaded. */
export const textsShown = async (page: Page): Promise<string[]> =>
  (await Promise.all(page.frames().map((frame) => frame.evaluate(() => (window as any).__texts ?? [])))).flat();

/**
 * The paid order's page as the buyer sees it: the confirmation alone, no card form and no "Pay $10.00" anywhere, and
 * the payment's id, returned.
 */
export async function paidPage(page: Page): Promise<string> {
  await page.getByText(/^Payment received/).waitFor();
  expect(await page.locator('#card').isVisible()).toBe(false);
  expect(await page.locator('iframe').count()).toBe(0);
  expect(await payButton(page).isVisible()).toBe(false);
  expect(await page.getByText('Pay $10.00').isVisible()).toBe(false);
  expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
  expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe('Payment');
  expect(await page.locator('#payment').isVisible()).toBe(true);
  const paymentId = (await page.locator('#payment-id').textContent()) ?? '';
  expect(paymentId).toMatch(/^pay_\w+$/);
  return paymentId;
}
