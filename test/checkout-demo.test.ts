import type { Server } from 'node:http';
import { closeServer, listen } from '@pps/shared/runtime';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SHOP_ACCOUNT, type DemoShop, startDemoShop } from '../services/gateway/src/checkout/demo-shop';
import { createTestStack, type TestStack } from './harness';

/**
 * The demo shop of `npm start` (development): its page on one origin embeds the API's card form from another, and
 * its server pays the demo merchant with the token, in chromium. Started twice, it keeps its account and merchant.
 */

let stack: TestStack;
let api: { server: Server; baseUrl: string };
let browser: Browser;
const shops: DemoShop[] = [];

const start = async () => {
  const shop = await startDemoShop({
    config: stack.config,
    db: stack.db,
    log: (await import('@pps/shared/logger')).createLogger({ level: 'silent' }),
    api: (path, init) => stack.gateway.request(path, init),
    apiBaseUrl: api.baseUrl,
    port: 0,
    hostname: '127.0.0.1',
  });
  shops.push(shop);
  return shop;
};

beforeAll(async () => {
  stack = await createTestStack();
  const listening = await listen(stack.gateway.fetch, 0, '127.0.0.1');
  api = { server: listening.server, baseUrl: `http://127.0.0.1:${listening.port}` };
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const shop of shops) await shop.close();
  if (api) await closeServer(api.server);
  await stack?.close();
});

describe('the demo shop', () => {
  it('pays the demo merchant with the token its page gets from the embedded form, and shows the status', async () => {
    const shop = await start();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`http://localhost:${shop.port}/demo/checkout`);
      const form = page.frameLocator('iframe');
      await form.getByRole('button', { name: 'Pay $10.00' }).waitFor();
      await form.getByLabel('Name on card').fill('Jane Buyer');
      await form.getByLabel('Card number').pressSequentially('4242424242424242');
      await form.getByLabel('Expiry date').pressSequentially('1230');
      await form.getByLabel('Security code').pressSequentially('123');
      await form.getByRole('button', { name: 'Pay $10.00' }).click();
      const outcome = page.locator('#outcome');
      await page
        .getByText(/^Paid \$10\.00/)
        .waitFor()
        .catch(async (error) => {
          throw new Error(`no payment: ${await outcome.textContent()}`, { cause: error });
        });
      const paid = /Payment (pay_\w+): pending\./.exec((await outcome.textContent()) ?? '');
      expect(paid, (await outcome.textContent()) ?? '').not.toBeNull();

      // A declined card: the shop says so; the form takes another card.
      await form.getByLabel('Card number').pressSequentially('4000000000000002');
      await form.getByLabel('Expiry date').pressSequentially('1230');
      await form.getByLabel('Security code').pressSequentially('123');
      await form.getByRole('button', { name: 'Pay $10.00' }).click();
      await page.getByText(/was declined/).waitFor();
      expect(await outcome.textContent()).toBe('Visa ending in 0002 was declined (Do not honor). Try another card.');
      expect(await page.content()).not.toContain('4242424242424242');

      const rows = await stack.sql`
        select p.id, p.status, a.name from payments p join accounts a on a.id = p.account_id
        order by p.created_at`;
      expect(rows.map((row) => [row.id === paid![1], row.status, row.name])).toEqual([
        [true, 'pending', DEMO_SHOP_ACCOUNT],
        [false, 'failed', DEMO_SHOP_ACCOUNT],
      ]);
      const [session] = await stack.sql`select allowed_origins from checkout_sessions`;
      expect(session!.allowed_origins).toEqual([`http://localhost:${shop.port}`]);
    } finally {
      await context.close();
    }
  });

  it('started again, keeps its account and merchant, with a new API key', async () => {
    const [before] = await stack.sql`select id, api_key_hash from accounts where name = ${DEMO_SHOP_ACCOUNT}`;
    await start();
    const accounts = await stack.sql`select id, api_key_hash from accounts where name = ${DEMO_SHOP_ACCOUNT}`;
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.id).toBe(before!.id);
    expect(accounts[0]!.api_key_hash).not.toBe(before!.api_key_hash);
    const merchants = await stack.sql`select id from merchants where account_id = ${before!.id}`;
    expect(merchants).toHaveLength(1);
  });
});
