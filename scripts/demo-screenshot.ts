import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

/**
 * Screenshots of the demo shop for the README: `npm start`, then
 * `npx tsx scripts/demo-screenshot.ts [--url http://localhost:8081/demo/checkout] [--out docs]`.
 * Types the sandbox Visa into the embedded card form (docs/checkout-demo.png), pays, and waits for the shop's
 * confirmation (docs/checkout-demo-paid.png). Uses Debian's chromium (CHROMIUM_PATH, default /usr/bin/chromium).
 */
const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://localhost:8081/demo/checkout' },
    out: { type: 'string', default: 'docs' },
  },
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 640 }, deviceScaleFactor: 1 });
  await page.goto(values.url!);
  const form = page.frameLocator('iframe');
  await form.getByRole('button', { name: 'Pay $10.00' }).waitFor();
  await form.getByLabel('Name on card').fill('Jane Buyer');
  await form.getByLabel('Card number').pressSequentially('4242424242424242');
  await form.getByLabel('Expiry date').pressSequentially('1230');
  await form.getByLabel('Security code').pressSequentially('123');
  await form.getByLabel('Name on card').focus();
  await page.screenshot({ path: `${values.out}/checkout-demo.png` });
  await form.getByRole('button', { name: 'Pay $10.00' }).click();
  await page.getByText(/^Payment received/).waitFor();
  await page.screenshot({ path: `${values.out}/checkout-demo-paid.png` });
  console.log(`screenshots written to ${values.out}/checkout-demo.png and ${values.out}/checkout-demo-paid.png`);
} finally {
  await browser.close();
}
