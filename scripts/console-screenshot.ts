import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

/**
 * Screenshots of the console for the README: `npm start`, pay once in the demo shop (or run README's worked example),
 * then `KEY=sk_test_… npx tsx scripts/console-screenshot.ts [--url http://localhost:8080] [--out docs]` with the
 * demo account's key. Signs in, and writes the home page (docs/console-home.png), the payments list
 * (docs/console-payments.png) and the newest payment's page (docs/console-payment.png). Uses Debian's chromium
 * (CHROMIUM_PATH, default /usr/bin/chromium).
 */
const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://localhost:8080' },
    out: { type: 'string', default: 'docs' },
  },
});
const key = process.env.KEY;
if (!key) throw new Error('set KEY to the API key of the account to sign in with');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 760 }, deviceScaleFactor: 1 });
  await page.goto(`${values.url}/console/sign-in`);
  await page.getByLabel('API key').fill(key);
  await Promise.all([page.waitForURL(/\/console$/), page.getByRole('button', { name: 'Sign in' }).click()]);
  await page.locator('.chart-canvas canvas').waitFor();
  await page.screenshot({ path: `${values.out}/console-home.png` });
  await page.goto(`${values.url}/console/payments`);
  await page.screenshot({ path: `${values.out}/console-payments.png` });
  await Promise.all([page.waitForURL(/\/console\/payments\/pay_/), page.locator('tbody th a').first().click()]);
  await page.screenshot({ path: `${values.out}/console-payment.png`, fullPage: true });
  console.log(`screenshots written to ${values.out}/console-home.png, console-payments.png and console-payment.png`);
} finally {
  await browser.close();
}
