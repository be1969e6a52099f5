import type { Server } from 'node:http';
import { type ApiCall, DEMO_SHOP_ACCOUNT, type DemoShop, startDemoShop } from '@pps/gateway';
import { closeServer, listen } from '@pps/shared/runtime';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStack, type TestStack } from '../harness';

/**
 * The demo shop of `npm start` (development): its page on one origin embeds the API's card form from another, and
 * its server pays the demo merchant with the token, in chromium, once per order (the payments of an order are read
 * from the database by its reference, their invoice). Started twice, it keeps its account and merchant.
 */

let stack: TestStack;
let api: { server: Server; baseUrl: string };
let browser: Browser;
const shops: DemoShop[] = [];

const start = async (apiCall?: ApiCall) => {
  const shop = await startDemoShop({
    config: stack.config,
    db: stack.db,
    log: (await import('@pps/shared/logger')).createLogger({ level: 'silent' }),
    api: apiCall ?? ((path, init) => stack.gateway.request(path, init)),
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

const VISA = '4242424242424242';
const DECLINED = '4000000000000002';
const MASTERCARD = '5555555555554444';

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

type Opened = { page: Page; failures: string[] };

/**
 * Opens `url` in `context`: `failures` collects every response of 400 or more and every resource the browser says it
 * failed to load (a favicon's 404 is only in the console: the browser asks for it, not the page).
 */
async function open(context: BrowserContext, url: string): Promise<Opened> {
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

async function newContext() {
  const context = await browser.newContext();
  await context.addInitScript(recordTexts);
  return context;
}

const cardForm = (page: Page) => page.frameLocator('iframe');
const payButton = (page: Page) => cardForm(page).getByRole('button', { name: 'Pay $10.00' });

async function typeCard(page: Page, number: string) {
  const form = cardForm(page);
  await payButton(page).waitFor();
  const holder = form.getByLabel('Name on card');
  if ((await holder.inputValue()) === '') await holder.fill('Jane Buyer');
  await form.getByLabel('Card number').pressSequentially(number);
  await form.getByLabel('Expiry date').pressSequentially('1230');
  await form.getByLabel('Security code').pressSequentially('123');
}

/** What the buyer reads: the shop's page and the card form, now. */
const shownText = async (page: Page) =>
  `${await page.locator('body').innerText()}\n${await cardForm(page).locator('body').innerText()}`;

/** Every text the shop's page and the card form showed since they loaded. */
const textsShown = async (page: Page): Promise<string[]> =>
  (await Promise.all(page.frames().map((frame) => frame.evaluate(() => (window as any).__texts ?? [])))).flat();

/** The order on the page (its reference is the payments' invoice). */
async function orderOf(page: Page) {
  const reference = /Order (DEMO-[0-9A-F]{8})/.exec((await page.locator('.reference').textContent()) ?? '')?.[1];
  expect(reference).toBeDefined();
  return { id: new URL(page.url()).searchParams.get('order')!, reference: reference! };
}

const paymentsOf = (reference: string) =>
  stack.sql`select p.id, p.status, a.name from payments p join accounts a on a.id = p.account_id
    where p.invoice = ${reference} order by p.created_at`;

describe('the demo shop', () => {
  it('charges an order once: a double click, a retry after a lost answer, a second tab and a reload pay nothing more', async () => {
    const shop = await start();
    const context = await newContext();
    try {
      const first = await open(context, `http://localhost:${shop.port}/demo/checkout`);
      const order = await orderOf(first.page);
      expect(order.id).toMatch(/^[0-9a-f-]{36}$/);
      // The same order in a second tab, opened before paying.
      const second = await open(context, first.page.url());
      expect((await orderOf(second.page)).reference).toBe(order.reference);

      // Double click; the shop's answer is lost on the way back (the server charged; the page sees a network error).
      await first.page.route(
        '**/demo/checkout/pay',
        async (route) => {
          await route.fetch();
          await route.abort('connectionreset');
        },
        { times: 1 },
      );
      await typeCard(first.page, VISA);
      await payButton(first.page).dblclick();
      const outcome = first.page.locator('#outcome');
      await first.page.getByText(/could not be reached/).waitFor();
      expect(await outcome.textContent()).toBe(
        'The shop could not be reached to confirm the payment. Try again: your order is never charged twice.',
      );
      expect(await paymentsOf(order.reference)).toHaveLength(1);
      expect(await payButton(first.page).isEnabled()).toBe(true);

      // The buyer tries again: the shop's server answers with the payment it made.
      await typeCard(first.page, VISA);
      await payButton(first.page).click();
      await first.page.getByText(/^Payment received/).waitFor();
      const confirmation = `Payment received — $10.00 charged to Visa ending 4242. Order ${order.reference}.`;
      expect(await outcome.textContent()).toBe(confirmation);
      expect(await payButton(first.page).isDisabled()).toBe(true);
      expect(await cardForm(first.page).getByLabel('Card number').isDisabled()).toBe(true);
      await payButton(first.page).click({ force: true }); // a disabled button does nothing

      // The second tab pays with another card: the order is paid, and it says so (the card that paid).
      await typeCard(second.page, MASTERCARD);
      await payButton(second.page).click();
      await second.page.getByText(/^Payment received/).waitFor();
      expect(await second.page.locator('#outcome').textContent()).toBe(confirmation);
      expect(await payButton(second.page).isDisabled()).toBe(true);

      // Reloaded, the page is the order's confirmation, with no card form.
      await first.page.reload();
      expect(await first.page.locator('#outcome').textContent()).toBe(confirmation);
      expect(await first.page.locator('iframe').count()).toBe(0);
      expect(await first.page.getByRole('link', { name: 'Start a new order' }).isVisible()).toBe(true);

      // The shop's server itself: payments of the paid order, at once, answer the payment again and charge nothing.
      const token = (await stack.sql`select id from tokens order by created_at desc limit 1`)[0]!.id as string;
      const again = await first.page.evaluate(
        ([orderId, tokenId]) =>
          Promise.all(
            [1, 2, 3].map(async () => {
              const response = await fetch('/demo/checkout/pay', {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ orderId, tokenId, holder: 'Jane Buyer', expiry: '1230' }),
              });
              return [response.status, response.headers.get('idempotent-replayed'), await response.json()];
            }),
          ),
        [order.id, token],
      );
      expect(again).toEqual(
        [1, 2, 3].map(() => [200, 'true', { outcome: 'paid', reference: order.reference, message: confirmation }]),
      );

      const rows = await paymentsOf(order.reference);
      expect(rows.map((row) => [row.status, row.name])).toEqual([['pending', DEMO_SHOP_ACCOUNT]]);
      const [session] = await stack.sql`select allowed_origins from checkout_sessions`;
      expect(session!.allowed_origins).toEqual([`http://localhost:${shop.port}`]);
      // Nothing failed to load but the answer the test cut.
      expect(first.failures).toEqual(['Failed to load resource: net::ERR_CONNECTION_RESET']);
      expect(second.failures).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a declined card shows the decline, never "Card saved"; another card then pays it, with a confirmation', async () => {
    const shop = await start();
    const context = await newContext();
    try {
      const { page, failures } = await open(context, `http://localhost:${shop.port}/demo/checkout`);
      const order = await orderOf(page);
      const outcome = page.locator('#outcome');
      await typeCard(page, DECLINED);
      await payButton(page).click();
      await page.getByText(/was declined/).waitFor();
      expect(await outcome.textContent()).toBe('Visa ending in 0002 was declined (Do not honor). Try another card.');
      expect(await cardForm(page).locator('#form-status').textContent()).toBe('');
      expect(await payButton(page).isEnabled()).toBe(true);
      expect(await textsShown(page)).not.toContainEqual(expect.stringMatching(/saved/i));

      // Another card: the shopper's confirmation, with the order's reference, and no payment id or status.
      await typeCard(page, VISA);
      await payButton(page).click();
      await page.getByText(/^Payment received/).waitFor();
      expect(await outcome.textContent()).toBe(
        `Payment received — $10.00 charged to Visa ending 4242. Order ${order.reference}.`,
      );
      const texts = [await shownText(page), ...(await textsShown(page))];
      for (const text of texts) {
        expect(text).not.toContain('pay_');
        expect(text).not.toMatch(/pending|saved/i);
        expect(text).not.toContain(VISA);
      }
      expect(await payButton(page).isDisabled()).toBe(true);
      for (const field of ['Name on card', 'Card number', 'Expiry date', 'Security code']) {
        expect(await cardForm(page).getByLabel(field).isDisabled()).toBe(true);
      }
      expect(await page.locator('#cards').isVisible()).toBe(false);
      expect(await page.getByRole('link', { name: 'Start a new order' }).isVisible()).toBe(true);

      // The decline and the payment: two attempts of the order, under two idempotency keys.
      const rows = await paymentsOf(order.reference);
      expect(rows.map((row) => row.status)).toEqual(['failed', 'pending']);
      // A decline is an answer of the shop, not an error of the browser's.
      expect(failures).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('loads with no failed request: the page and the card form have their icon inline (no /favicon.ico)', async () => {
    const shop = await start();
    const context = await newContext();
    try {
      const { page, failures } = await open(context, `http://localhost:${shop.port}/`);
      expect(new URL(page.url()).pathname).toBe('/demo/checkout');
      await payButton(page).waitFor();
      await page.waitForLoadState('networkidle');
      for (const icon of [page.locator('link[rel="icon"]'), cardForm(page).locator('link[rel="icon"]')]) {
        expect(await icon.count()).toBe(1);
        expect(await icon.getAttribute('href')).toMatch(/^data:image\/svg\+xml,/);
      }
      expect(failures).toEqual([]);
      // A new visit is a new order; an order the shop does not know is a new one too.
      const again = await open(context, `http://localhost:${shop.port}/demo/checkout?order=unknown`);
      const [one, two] = [await orderOf(page), await orderOf(again.page)];
      expect(two.id).not.toBe(one.id);
      expect(again.failures).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a payment whose answer was lost is sent again, as it was, before another card: the order is charged once', async () => {
    // The shop's server loses the API's answer to its first payment (the API made it).
    let lose = 1;
    const shop = await start(async (path, init) => {
      const answer = await stack.gateway.request(path, init);
      if (path === '/payments' && init?.method === 'POST' && lose-- > 0) throw new Error('socket hang up');
      return answer;
    });
    const base = `http://localhost:${shop.port}`;
    const post = async (url: string, body: unknown, headers: Record<string, string> = { origin: base }) => {
      const response = await fetch(url.startsWith('/') ? `${base}${url}` : url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    const opened = await fetch(`${base}/demo/checkout`, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    const orderId = new URL(opened.headers.get('location')!, base).searchParams.get('order')!;
    const page = await (await fetch(`${base}/demo/checkout?order=${orderId}`)).text();
    const reference = /Order (DEMO-[0-9A-F]{8})/.exec(page)![1]!;
    // Two cards vaulted through the order's checkout session, as its page's form would.
    const session = await post('/demo/checkout/session', { orderId });
    const vault = async (number: string) =>
      (
        await post(
          `${api.baseUrl}/checkout/sessions/${session.body.sessionId}/tokens`,
          {
            data: {
              type: 'tokens',
              attributes: { tokenType: 'card', card: { holder: 'Jane Buyer', number, expiry: '1230', code: '123' } },
            },
          },
          { 'x-client-secret': session.body.clientSecret },
        )
      ).body.data.id as string;
    const [visa, mastercard] = [await vault(VISA), await vault(MASTERCARD)];

    const lost = await post('/demo/checkout/pay', { orderId, tokenId: visa, holder: 'Jane Buyer', expiry: '1230' });
    expect(lost).toEqual({
      status: 502,
      body: {
        outcome: 'unknown',
        reference,
        message: 'The payment could not be confirmed. Try again: your order is never charged twice.',
      },
    });
    expect((await paymentsOf(reference)).map((row) => row.status)).toEqual(['pending']);

    // Another card: the lost request goes again first, the API replays it, and the order is paid by the Visa.
    const again = await post('/demo/checkout/pay', {
      orderId,
      tokenId: mastercard,
      holder: 'Jane Buyer',
      expiry: '1230',
    });
    expect(again).toEqual({
      status: 200,
      body: {
        outcome: 'paid',
        reference,
        message: `Payment received — $10.00 charged to Visa ending 4242. Order ${reference}.`,
      },
    });
    expect((await paymentsOf(reference)).map((row) => row.status)).toEqual(['pending']);
    // Its page is now the confirmation, and it gets no new checkout session.
    expect(await (await fetch(`${base}/demo/checkout?order=${orderId}`)).text()).toContain(again.body.message);
    expect(await post('/demo/checkout/session', { orderId })).toEqual({ status: 200, body: again.body });
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
