import type { Server } from 'node:http';
import {
  type ApiCall,
  DEMO_SHOP_ACCOUNT,
  type DemoShop,
  type DemoShopAccount,
  demoShopAccount,
  startDemoShop,
} from '@pps/gateway';
import { systemClock } from '@pps/shared/clock';
import { createLogger } from '@pps/shared/logger';
import { closeServer, listen } from '@pps/shared/runtime';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import {
  cardForm,
  DECLINED,
  launchChromium,
  MASTERCARD,
  newContext,
  open,
  paidPage,
  payButton,
  shownText,
  textsShown,
  typeCard,
  VISA,
} from './shop-page';

/**
 * The demo shop of `npm start` (development): its page on one origin embeds the API's card form from another, and
 * its server pays the demo merchant with the token, in chromium, once per order (the payments of an order are read
 * from the database by its reference, their invoice). It charges the demo account it is given (made here as
 * `npm start` makes it, the harness holding its key as a reader holds the printed one) from an app of its own, and
 * shows the payment's id, which the reader's credentials find. Started again, it keeps its app and merchant.
 * `npm start` itself: demo-start.slow.test.ts.
 */

let stack: TestStack;
let api: { server: Server; baseUrl: string };
let browser: Browser;
/** The demo account, with the key and app a reader got from `npm start`'s export line. */
let demo: Credentials;
let account: DemoShopAccount;
const shops: DemoShop[] = [];
const log = createLogger({ level: 'silent' });
const ctx = () => ({ db: stack.db, clock: systemClock, log });

const start = async (apiCall?: ApiCall, charged: DemoShopAccount = account) => {
  const shop = await startDemoShop({
    config: stack.config,
    log,
    account: charged,
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
  browser = await launchChromium();
  demo = await stack.createAccount('Demo Platform');
  account = await demoShopAccount({ ctx: ctx(), input: { demo } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const shop of shops) await shop.close();
  if (api) await closeServer(api.server);
  await stack?.close();
});

/** The order on the page (its reference is the payments' invoice). */
async function orderOf(page: Page) {
  const reference = /Order (DEMO-[0-9A-F]{8})/.exec((await page.locator('.reference').textContent()) ?? '')?.[1];
  expect(reference).toBeDefined();
  return { id: new URL(page.url()).searchParams.get('order')!, reference: reference! };
}

const paymentsOf = (reference: string) =>
  stack.sql`select p.id, p.status, p.account_id from payments p where p.invoice = ${reference} order by p.created_at`;

/**
 * README's steps 1 and 2 with the demo account's key and app: a new app key and an app token (which revokes the
 * tokens minted before for that app, the shop's excepted).
 */
async function readerCredentials(): Promise<Credentials> {
  const key = await stack.call('POST', '/auth/key', {
    headers: { 'x-api-key': demo.apiKey },
    body: { data: { type: 'auth', attributes: { appId: demo.appId } } },
  });
  const appKey = key.body.data.attributes.appKey as string;
  const token = await stack.call('POST', '/auth/token', {
    headers: { 'x-api-key': demo.apiKey },
    body: { data: { type: 'auth', attributes: { appKey } } },
  });
  const appToken = token.body.data.attributes.appToken as string;
  return {
    ...demo,
    appKey,
    appToken,
    headers: { authorization: `Bearer ${appToken}`, 'x-api-key': demo.apiKey, appid: demo.appId },
  };
}

/** `GET /payments/{id}` as a reader of README does it, with the demo account's credentials. */
const lookUp = (paymentId: string, as: Credentials) => stack.call('GET', `/payments/${paymentId}`, { as });

describe('the demo shop', () => {
  it('charges an order once: a double click, a retry after a lost answer, a second tab and a reload pay nothing more', async () => {
    const shop = await start();
    const context = await newContext(browser);
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

      // The buyer tries again: the shop's server answers with the payment it made, and the form goes.
      await typeCard(first.page, VISA);
      await payButton(first.page).click();
      const paymentId = await paidPage(first.page);
      const confirmation = `Payment received — $10.00 charged to Visa ending 4242. Order ${order.reference}.`;
      expect(await outcome.textContent()).toBe(confirmation);

      // The second tab pays with another card: the order is paid, and it says so (the card and payment that paid).
      await typeCard(second.page, MASTERCARD);
      await payButton(second.page).click();
      expect(await paidPage(second.page)).toBe(paymentId);
      expect(await second.page.locator('#outcome').textContent()).toBe(confirmation);

      // Reloaded, the page is the order's confirmation, with no card form.
      await first.page.reload();
      expect(await paidPage(first.page)).toBe(paymentId);
      expect(await first.page.locator('#outcome').textContent()).toBe(confirmation);
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
        [1, 2, 3].map(() => [
          200,
          'true',
          { outcome: 'paid', reference: order.reference, message: confirmation, paymentId },
        ]),
      );

      const rows = await paymentsOf(order.reference);
      expect(rows.map((row) => [row.id, row.status, row.account_id])).toEqual([[paymentId, 'pending', demo.accountId]]);
      const [session] = await stack.sql`select allowed_origins from checkout_sessions`;
      expect(session!.allowed_origins).toEqual([`http://localhost:${shop.port}`]);
      // Nothing failed to load but the answer the test cut.
      expect(first.failures).toEqual(['Failed to load resource: net::ERR_CONNECTION_RESET']);
      expect(second.failures).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a declined card leaves the form to try again; another card pays, and the demo account finds the payment', async () => {
    const shop = await start();
    // The reader follows README's worked example meanwhile: a new app key for the account's app revokes that app's
    // tokens, never the shop's (it charges from an app of its own).
    const reader = await readerCredentials();
    const context = await newContext(browser);
    try {
      const { page, failures } = await open(context, `http://localhost:${shop.port}/demo/checkout`);
      const order = await orderOf(page);
      const outcome = page.locator('#outcome');
      await typeCard(page, DECLINED);
      await payButton(page).click();
      await page.getByText(/was declined/).waitFor();
      expect(await outcome.textContent()).toBe('Visa ending in 0002 was declined (Do not honor). Try another card.');
      expect(await cardForm(page).locator('#form-status').textContent()).toBe('');
      expect(await payButton(page).isVisible()).toBe(true);
      expect(await payButton(page).isEnabled()).toBe(true);
      expect(await cardForm(page).getByLabel('Card number').isEditable()).toBe(true);
      expect(await page.locator('#payment').isVisible()).toBe(false);
      expect(await textsShown(page)).not.toContainEqual(expect.stringMatching(/saved/i));

      // Another card: the shopper's confirmation, with the order's reference and the payment's id, the form gone.
      await typeCard(page, VISA);
      await payButton(page).click();
      const paymentId = await paidPage(page);
      expect(await outcome.textContent()).toBe(
        `Payment received — $10.00 charged to Visa ending 4242. Order ${order.reference}.`,
      );
      expect(await page.locator('#cards').isVisible()).toBe(false);
      expect(await page.getByRole('link', { name: 'Start a new order' }).isVisible()).toBe(true);
      // Focus was in the form, which is gone: it is on the confirmation's heading.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('payment-title');
      const texts = [await shownText(page), ...(await textsShown(page))];
      for (const text of texts) {
        expect(text).not.toMatch(/pending|saved/i);
        expect(text).not.toContain(VISA);
        expect(text).not.toMatch(/sk_test_|ak_|Bearer/);
      }

      // The payment, through the API, with the demo account's credentials (README's worked example).
      const found = await lookUp(paymentId, reader);
      expect(found.status).toBe(200);
      expect(found.body.data).toMatchObject({
        id: paymentId,
        attributes: { status: 'pending', merchantId: expect.stringMatching(/^mer_/) },
      });
      expect(found.body.data.attributes.transaction).toMatchObject({ amount: '1000', invoice: order.reference });

      // The decline and the payment: two attempts of the order, under two idempotency keys.
      const rows = await paymentsOf(order.reference);
      expect(rows.map((row) => [row.status, row.account_id])).toEqual([
        ['failed', demo.accountId],
        ['pending', demo.accountId],
      ]);
      expect(rows[1]!.id).toBe(paymentId);
      // A decline is an answer of the shop, not an error of the browser's.
      expect(failures).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('loads with no failed request: the page and the card form have their icon inline (no /favicon.ico)', async () => {
    const shop = await start();
    const context = await newContext(browser);
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
    const [paid] = await paymentsOf(reference);
    expect(again).toEqual({
      status: 200,
      body: {
        outcome: 'paid',
        reference,
        message: `Payment received — $10.00 charged to Visa ending 4242. Order ${reference}.`,
        paymentId: paid!.id,
      },
    });
    expect((await paymentsOf(reference)).map((row) => row.status)).toEqual(['pending']);
    // Its page is now the confirmation with the payment's id, and it gets no new checkout session.
    const confirmation = await (await fetch(`${base}/demo/checkout?order=${orderId}`)).text();
    expect(confirmation).toContain(again.body.message);
    expect(confirmation).toContain(`<code id="payment-id">${paid!.id}</code>`);
    expect(await post('/demo/checkout/session', { orderId })).toEqual({ status: 200, body: again.body });
  });

  it("started again, keeps its app and finds its merchant by name among the demo account's others", async () => {
    await createMerchant(stack, await readerCredentials()); // a reader's, made with the printed key
    expect((await demoShopAccount({ ctx: ctx(), input: { demo } })).shopAppId).toBe(account.shopAppId);
    await start();
    const apps = await stack.sql`select id, name from apps where account_id = ${demo.accountId} order by created_at`;
    expect(apps.map((app) => app.id)).toEqual([demo.appId, account.shopAppId]);
    const merchants = await stack.sql`select account_name from merchants where account_id = ${demo.accountId}`;
    expect(merchants.map((row) => row.account_name).sort()).toEqual(['Demo Coffee Roasters', 'Jane Doe Photography']);
  });

  it('with no demo account in hand, charges its own account "Demo Shop", with a new API key at each start', async () => {
    const own = await demoShopAccount({ ctx: ctx(), input: {} });
    expect(own).toMatchObject({ kind: 'own', apiKey: expect.stringMatching(/^sk_test_/) });
    await start(undefined, own);
    const again = await demoShopAccount({ ctx: ctx(), input: {} });
    expect(again).toMatchObject({ kind: 'own', accountId: own.accountId, appId: own.appId, shopAppId: own.shopAppId });
    expect(again.apiKey).not.toBe(own.apiKey);
    await start(undefined, again);
    const accounts = await stack.sql`select id from accounts where name = ${DEMO_SHOP_ACCOUNT}`;
    expect(accounts.map((row) => row.id)).toEqual([own.accountId]);
    const merchants = await stack.sql`select id from merchants where account_id = ${own.accountId}`;
    expect(merchants).toHaveLength(1);
    // The key `npm start` prints for it is the one in force: the one before is refused.
    const auth = (apiKey: string, appId: string) =>
      stack.call('POST', '/auth/key', {
        headers: { 'x-api-key': apiKey },
        body: { data: { type: 'auth', attributes: { appId } } },
      });
    expect((await auth(again.apiKey, again.appId)).status).toBe(201);
    expect((await auth(own.apiKey, own.appId)).status).toBe(401);
  });
});
