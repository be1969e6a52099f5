import { randomInt, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Config } from '@pps/shared/config';
import { normalizeOrigin } from '@pps/shared/contract';
import type { Logger } from '@pps/shared/logger';
import { closeServer, listen } from '@pps/shared/runtime';
import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { checkoutAsset } from './assets';
import type { DemoShopAccount } from './demo-account';
import { demoPage, PRICE } from './demo-page';

/**
 * The demo shop of `npm start` in development (README, Quick start): a platform's checkout page on a second origin
 * (DEMO_PORT) that mounts the hosted card form with checkout.js and pays the demo merchant with the token it gets,
 * from its server side with the four headers, as a platform would. It is given the account it charges and that
 * account's API key (demo-account.ts: the demo account `npm start` printed when it made it now); at start it makes an
 * app key and token for its own app in that account, and finds or makes its merchant, "Demo Coffee Roasters".
 *
 * It charges each order once, as a shop must: the page is an order's (`/demo/checkout?order=<id>`), its payment's
 * `requestId` is the order's, the form is held while a payment is under way and for good once paid, and the server
 * answers every later payment of a paid order (a double click, a retry, a reload, a second tab) with its payment.
 */

const AMOUNT = '1000';
const MERCHANT = 'Demo Coffee Roasters';
/** Orders kept, the newest (in memory: a real shop keeps them in its database). */
const MAX_ORDERS = 1000;
const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
};
/**
 * What the shop's server tells its page about paying an order: once paid, the payment's id (what the buyer and the
 * shop's support name it by, and what `GET /payments/{id}` finds), never the API's status words. An outcome the shop
 * knows (paid, declined) is a 200, which the browser logs as no error; 400 is a payment the API refused without
 * making it, 502 a payment whose outcome is not known yet.
 */
type PayAnswer = {
  status: ContentfulStatusCode;
  body: {
    outcome: 'paid' | 'declined' | 'failed' | 'unknown';
    reference: string;
    message: string;
    paymentId?: string;
  };
  /** The answer of a payment made before (a paid order): sent again, with `Idempotent-Replayed: true`. */
  replayed?: boolean;
};

/**
 * An order, made when its checkout page is first asked for. Its payment is keyed by the order: `requestId` is the
 * idempotency key of the order's payment, replaced only after a declined attempt (a failed payment is that key's
 * answer for good; the next card is a new attempt). Its payments run one at a time.
 */
type Order = {
  /** A UUID, in the page's URL. */
  id: string;
  /** `DEMO-…`: the payment's invoice, and what the buyer is shown. */
  reference: string;
  requestId: string;
  /** The request sent under `requestId` that the API did not answer: sent again, as it was, before another card. */
  unsettled?: Json;
  /** Set once paid: every later payment of the order answers this. */
  paid?: PayAnswer & { body: { paymentId: string } };
  queue: Promise<unknown>;
};

/** How the shop reaches the API: the gateway in this process (`gateway.request`). */
export type ApiCall = (path: string, init?: RequestInit) => Response | Promise<Response>;

// biome-ignore lint/suspicious/noExplicitAny: the JSON answers of our own API, read field by field below.
type Json = any;
type Answer = { status: number; body: Json };

async function call(api: ApiCall, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await api(path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined } as Answer;
}

function required(answer: Answer, status: number, what: string): Json {
  if (answer.status !== status)
    throw new Error(`demo shop: ${what} failed (${answer.status}): ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/**
 * The headers of the shop's calls: the account's API key and the shop's own app, with an app token minted again when
 * the current one is about to expire.
 */
async function demoCredentials(api: ApiCall, account: Pick<DemoShopAccount, 'apiKey' | 'shopAppId'>) {
  const { apiKey, shopAppId: appId } = account;
  const keyBody = required(
    await call(api, 'POST', '/auth/key', { 'x-api-key': apiKey }, { data: { type: 'auth', attributes: { appId } } }),
    201,
    'app key',
  );
  const appKey = keyBody.data.attributes.appKey as string;
  let token = { value: '', expiresAt: 0 };
  return async (): Promise<Record<string, string>> => {
    if (token.expiresAt - Date.now() < 5 * 60_000) {
      const body = required(
        await call(
          api,
          'POST',
          '/auth/token',
          { 'x-api-key': apiKey },
          { data: { type: 'auth', attributes: { appKey } } },
        ),
        201,
        'app token',
      );
      token = { value: body.data.attributes.appToken, expiresAt: Date.parse(body.data.attributes.expiresAt) };
    }
    return { authorization: `Bearer ${token.value}`, 'x-api-key': apiKey, appid: appId };
  };
}

/**
 * The shop's merchant, by its name: the account may have others (a reader's, made with the key `npm start` printed).
 * Made the first time, with sandbox values (README, Quick start).
 */
async function demoMerchant(api: ApiCall, headers: Record<string, string>): Promise<{ id: string; name: string }> {
  const listed = required(await call(api, 'GET', '/merchants?status=active&limit=100', headers), 200, 'merchant list');
  const existing = listed.data.find((merchant: Json) => merchant.attributes.accountName === MERCHANT);
  if (existing) return { id: existing.id, name: MERCHANT };
  const ssn = `${randomInt(100, 666)}${randomInt(10, 100)}${randomInt(1000, 10000)}`;
  const created = required(
    await call(api, 'POST', '/merchants', headers, {
      data: {
        type: 'merchants',
        attributes: {
          accountType: 'personal',
          accountName: MERCHANT,
          personalInfo: {
            firstName: 'Dana',
            lastName: 'Demo',
            email: `dana.demo.${ssn}@example.com`,
            dayPhone: '4155550100',
            birthDate: '04-12-1985',
            socialSecurity: ssn,
          },
          personalAddress: { line1: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94105', country: 'USA' },
          bankInfo: {
            bankName: 'First Test Bank',
            accountOwnership: 'personal',
            accountType: 'checking',
            accountName: 'Dana Demo',
            accountNumber: '000123456789',
            routingNumber: '021000021',
          },
          verificationData: {
            ipAddress: '203.0.113.7',
            emailVerified: true,
            signature: 'Dana Demo',
            signatureTimestamp: new Date().toISOString(),
            termsAccepted: true,
          },
        },
      },
    }),
    201,
    'merchant',
  );
  return { id: created.data.id, name: created.data.attributes.accountName };
}

/** The origin the buyer's browser sees this page at (frame-ancestors of its session), from its request. */
function requestOrigin(c: Context): string | null {
  const origin = c.req.header('origin');
  if (origin) return normalizeOrigin(origin);
  const host = c.req.header('host');
  return host ? normalizeOrigin(`${new URL(c.req.url).protocol}//${host.toLowerCase()}`) : null;
}

export type DemoShop = { port: number; url: string; close: () => Promise<void> };

/**
 * Starts the demo shop on `config.DEMO_PORT` (never in production). `apiBaseUrl` is where the buyer's browser reaches
 * the API (PUBLIC_BASE_URL by default).
 */
export async function startDemoShop(deps: {
  config: Config;
  log: Logger;
  api: ApiCall;
  /** The account it charges, with its API key (demo-account.ts). */
  account: Pick<DemoShopAccount, 'apiKey' | 'shopAppId'>;
  apiBaseUrl?: string;
  port?: number;
  hostname?: string;
}): Promise<DemoShop> {
  const { config, api } = deps;
  if (config.NODE_ENV === 'production') throw new Error('the demo shop never runs in production');
  const log = deps.log.child({ module: 'demo-shop' });
  const apiBaseUrl = (deps.apiBaseUrl ?? config.PUBLIC_BASE_URL).replace(/\/+$/, '');
  const headers = await demoCredentials(api, deps.account);
  const merchant = await demoMerchant(api, await headers());

  const app = new Hono();
  const pageCsp = [
    "default-src 'self'",
    `script-src 'self' ${new URL(apiBaseUrl).origin}`,
    `frame-src ${new URL(apiBaseUrl).origin}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');

  const orders = new Map<string, Order>();
  const newOrder = (): Order => {
    const id = randomUUID();
    const order = {
      id,
      reference: `DEMO-${id.slice(0, 8).toUpperCase()}`,
      requestId: randomUUID(),
      queue: Promise.resolve(),
    };
    orders.set(id, order);
    if (orders.size > MAX_ORDERS) orders.delete(orders.keys().next().value as string);
    return order;
  };
  const orderOf = (id: unknown) => (typeof id === 'string' ? orders.get(id) : undefined);

  const unknownOutcome = (order: Order): PayAnswer => ({
    status: 502,
    body: {
      outcome: 'unknown',
      reference: order.reference,
      message: 'The payment could not be confirmed. Try again: your order is never charged twice.',
    },
  });

  /**
   * One POST /payments of `order`, under its `requestId`. Until the API answers, the request is the order's unsettled
   * one. A decline (a failed payment, stored and remembered under the key) spends the key: the next card gets a new
   * one. A refusal that stored nothing (an unknown token) leaves the key as it was.
   */
  async function send(order: Order, body: Json): Promise<PayAnswer> {
    order.unsettled = body;
    let paid: Answer;
    try {
      paid = await call(api, 'POST', '/payments', await headers(), body);
    } catch (error) {
      log.warn({ err: error, order: order.reference }, 'demo shop payment: no answer from the API');
      return unknownOutcome(order);
    }
    const paymentId = paid.status === 201 ? paid.body.data.id : paid.body?.meta?.paymentId;
    log.info({ status: paid.status, order: order.reference, paymentId }, 'demo shop payment');
    if (paid.status >= 500 || paid.status === 429) return unknownOutcome(order);
    order.unsettled = undefined;
    if (paid.status === 201) {
      const card = paid.body.data.attributes.card;
      const message = `Payment received — ${PRICE} charged to ${BRANDS[card.brand] ?? 'your card'} ending ${card.last4}. Order ${order.reference}.`;
      order.paid = { status: 200, body: { outcome: 'paid', reference: order.reference, message, paymentId } };
      return order.paid;
    }
    if (paymentId) order.requestId = randomUUID();
    const message: string = paid.body?.meta?.transaction?.message ?? paid.body?.errors?.[0]?.detail ?? 'refused';
    return paymentId
      ? { status: 200, body: { outcome: 'declined', reference: order.reference, message } }
      : { status: 400, body: { outcome: 'failed', reference: order.reference, message } };
  }

  /** Pays `order` with a token, unless it is paid: then its payment is the answer again, and nothing is charged. */
  async function charge(order: Order, token: { tokenId: string; holder: string; expiry: string }) {
    if (order.paid) return { ...order.paid, replayed: true };
    // The last request's outcome is unknown: the same request again (the API answers it with its first response if
    // it was made), so that an order paid meanwhile is not paid again with this card.
    if (order.unsettled) {
      const answer = await send(order, order.unsettled);
      if (order.paid || order.unsettled) return answer;
    }
    return send(order, {
      data: {
        type: 'payments',
        requestId: order.requestId,
        attributes: {
          paymentType: 'tokenv3',
          merchantId: merchant.id,
          token: { tokenId: token.tokenId, holder: token.holder, expiry: token.expiry, useAVS: false },
          transaction: { amount: AMOUNT, currency: 'USD', invoice: order.reference },
          billingAddress: { country: 'USA' },
        },
      },
    });
  }

  app.get('/', (c) => c.redirect('/demo/checkout'));
  // A page is an order's: without one (or with one this shop no longer knows), a new order.
  app.get('/demo/checkout', (c) => {
    const order = orderOf(c.req.query('order'));
    if (!order) return c.redirect(`/demo/checkout?order=${newOrder().id}`, 303);
    const origin = requestOrigin(c) ?? `http://localhost:${config.DEMO_PORT}`;
    const page = { id: order.id, reference: order.reference, paid: order.paid?.body };
    return c.html(demoPage({ origin, apiBaseUrl, merchant: merchant.name, order: page }), 200, {
      'content-security-policy': pageCsp,
      'cache-control': 'no-store',
    });
  });
  app.get('/demo/assets/:file', (c) => {
    const file = c.req.param('file');
    const asset = file === 'demo.js' || file === 'demo.css' ? checkoutAsset(file) : undefined;
    if (!asset) return c.notFound();
    return c.body(asset.body, 200, { 'content-type': asset.type, 'cache-control': 'no-cache' });
  });

  // The shop's server: a checkout session for this page's origin (the client secret goes to this page only), unless
  // the order is paid (another tab paid it): then its confirmation.
  app.post('/demo/checkout/session', async (c) => {
    const origin = requestOrigin(c);
    if (!origin) return c.json({ error: 'unknown origin' }, 400);
    const input = (await c.req.json().catch(() => ({}))) as { orderId?: unknown };
    const order = orderOf(input.orderId);
    if (!order) return c.json({ error: 'This order is not known: reload the page.' }, 404);
    if (order.paid) return c.json(order.paid.body);
    const created = await call(api, 'POST', '/checkout/sessions', await headers(), {
      data: { type: 'checkoutSessions', attributes: { allowedOrigins: [origin], merchantId: merchant.id } },
    });
    if (created.status !== 201) return c.json({ error: created.body?.errors?.[0]?.detail ?? 'no session' }, 502);
    return c.json({
      sessionId: created.body.data.id,
      clientSecret: created.body.data.attributes.clientSecret,
      amount: AMOUNT,
    });
  });

  // The shop's server charges the order with the token its page received (a tokenv3 payment with the card's holder
  // and expiry), one payment at a time per order.
  app.post('/demo/checkout/pay', async (c) => {
    const input = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    const { tokenId, holder, expiry } = input;
    if (typeof tokenId !== 'string' || typeof holder !== 'string' || typeof expiry !== 'string') {
      return c.json({ error: 'orderId, tokenId, holder and expiry are required' }, 400);
    }
    const order = orderOf(input.orderId);
    if (!order) return c.json({ error: 'This order is not known: reload the page.' }, 404);
    const run = order.queue.then(() => charge(order, { tokenId, holder, expiry }));
    order.queue = run.catch(() => undefined);
    const answer = await run;
    return c.json(answer.body, answer.status, answer.replayed ? { 'idempotent-replayed': 'true' } : {});
  });

  const listening: { server: Server; port: number } = await listen(
    app.fetch,
    deps.port ?? config.DEMO_PORT,
    deps.hostname ?? config.HOST,
    config,
  );
  const url = `http://localhost:${listening.port}/demo/checkout`;
  log.info({ url, merchantId: merchant.id }, 'demo shop listening: open it in a browser to try the embedded checkout');
  return {
    port: listening.port,
    url,
    close: async () => {
      await closeServer(listening.server, { log });
    },
  };
}
