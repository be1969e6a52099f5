import { randomInt, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Config } from '@pps/shared/config';
import { normalizeOrigin } from '@pps/shared/contract';
import { randomSecret, sha256Hex } from '@pps/shared/crypto';
import { type Db, schema } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import { closeServer, listen } from '@pps/shared/runtime';
import { asc, eq } from 'drizzle-orm';
import { type Context, Hono } from 'hono';
import { createAccount } from '../admin/accounts.usecases';
import { checkoutAsset } from './assets';

/**
 * The demo shop of `npm start` in development (README, Quick start): a platform's checkout page on a second origin
 * (DEMO_PORT) that mounts the hosted card form with checkout.js and pays the demo merchant with the token it gets,
 * from its server side with its own credentials, as a platform would. Everything it needs is made in-process at
 * start: the account "Demo Shop" (created once; its API key, never shown, is replaced at each start since only its
 * hash is kept), an app key and token, and an active merchant.
 */

export const DEMO_SHOP_ACCOUNT = 'Demo Shop';
const AMOUNT = '1000';

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

/** The demo shop's API key: a new one each start (the account is made once; only hashes are kept). */
async function demoApiKey(db: Db): Promise<{ apiKey: string; appId: string }> {
  const [account] = await db.select().from(schema.accounts).where(eq(schema.accounts.name, DEMO_SHOP_ACCOUNT)).limit(1);
  if (!account) {
    const created = await createAccount(db, { name: DEMO_SHOP_ACCOUNT });
    return { apiKey: created.apiKey, appId: created.appId };
  }
  const apiKey = randomSecret('sk_test_');
  await db
    .update(schema.accounts)
    .set({ apiKeyHash: sha256Hex(apiKey), apiKeyLast4: apiKey.slice(-4), updatedAt: new Date() })
    .where(eq(schema.accounts.id, account.id));
  const [app] = await db
    .select()
    .from(schema.apps)
    .where(eq(schema.apps.accountId, account.id))
    .orderBy(asc(schema.apps.createdAt))
    .limit(1);
  if (!app) throw new Error('demo shop: its account has no app');
  return { apiKey, appId: app.id };
}

/** The four headers of the shop's calls, minting a new app token when the current one is about to expire. */
async function demoCredentials(api: ApiCall, db: Db) {
  const { apiKey, appId } = await demoApiKey(db);
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

/** The shop's merchant: its first active one, else a new one (sandbox values; README, Quick start). */
async function demoMerchant(api: ApiCall, headers: Record<string, string>): Promise<{ id: string; name: string }> {
  const listed = required(await call(api, 'GET', '/merchants?status=active&limit=1', headers), 200, 'merchant list');
  const existing = listed.data[0];
  if (existing) return { id: existing.id, name: existing.attributes.accountName };
  const ssn = `${randomInt(100, 666)}${randomInt(10, 100)}${randomInt(1000, 10000)}`;
  const created = required(
    await call(api, 'POST', '/merchants', headers, {
      data: {
        type: 'merchants',
        attributes: {
          accountType: 'personal',
          accountName: 'Demo Coffee Roasters',
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

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function demoPage(shop: { origin: string; apiBaseUrl: string; merchant: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Demo shop: embedded checkout</title>
  <link rel="stylesheet" href="/demo/assets/demo.css">
  <script src="${escapeHtml(shop.apiBaseUrl)}/checkout.js" defer></script>
  <script src="/demo/assets/demo.js" defer></script>
</head>
<body>
  <header class="bar">
    <strong>${escapeHtml(shop.merchant)}</strong>
    <span>a demo shop at ${escapeHtml(shop.origin)}</span>
  </header>
  <main class="shop">
    <section class="order" aria-labelledby="order-title">
      <h1 id="order-title">Your order</h1>
      <ul class="lines"><li><span>House blend, 250 g</span><span>$10.00</span></li></ul>
      <p class="total"><span>Total</span><span>$10.00</span></p>
      <p class="note">This page belongs to the shop (${escapeHtml(shop.origin)}). The card form is the API's
        (${escapeHtml(shop.apiBaseUrl)}), in an iframe: the card number never reaches this page or the shop's
        server, which gets a vault token and charges it.</p>
    </section>
    <section class="payment" aria-labelledby="payment-title">
      <h2 id="payment-title">Pay by card</h2>
      <div id="card"></div>
      <div id="outcome" class="outcome" role="status" aria-live="polite"></div>
      <p class="cards">Sandbox cards: <code>4242 4242 4242 4242</code> approved, <code>4000 0000 0000 0002</code>
        declined; any future expiry, any 3 digits.</p>
    </section>
  </main>
</body>
</html>
`;
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
  db: Db;
  log: Logger;
  api: ApiCall;
  apiBaseUrl?: string;
  port?: number;
  hostname?: string;
}): Promise<DemoShop> {
  const { config, db, api } = deps;
  if (config.NODE_ENV === 'production') throw new Error('the demo shop never runs in production');
  const log = deps.log.child({ module: 'demo-shop' });
  const apiBaseUrl = (deps.apiBaseUrl ?? config.PUBLIC_BASE_URL).replace(/\/+$/, '');
  const headers = await demoCredentials(api, db);
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

  app.get('/', (c) => c.redirect('/demo/checkout'));
  app.get('/demo/checkout', (c) => {
    const origin = requestOrigin(c) ?? `http://localhost:${config.DEMO_PORT}`;
    return c.html(demoPage({ origin, apiBaseUrl, merchant: merchant.name }), 200, {
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

  // The shop's server: a checkout session for this page's origin (the client secret goes to this page only).
  app.post('/demo/checkout/session', async (c) => {
    const origin = requestOrigin(c);
    if (!origin) return c.json({ error: 'unknown origin' }, 400);
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

  // The shop's server charges the token its page received (a tokenv3 payment with the card's holder and expiry).
  app.post('/demo/checkout/pay', async (c) => {
    const input = (await c.req.json().catch(() => ({}))) as { tokenId?: unknown; holder?: unknown; expiry?: unknown };
    if (typeof input.tokenId !== 'string' || typeof input.holder !== 'string' || typeof input.expiry !== 'string') {
      return c.json({ error: 'tokenId, holder and expiry are required' }, 400);
    }
    const paid = await call(api, 'POST', '/payments', await headers(), {
      data: {
        type: 'payments',
        requestId: randomUUID(),
        attributes: {
          paymentType: 'tokenv3',
          merchantId: merchant.id,
          token: { tokenId: input.tokenId, holder: input.holder, expiry: input.expiry, useAVS: false },
          transaction: { amount: AMOUNT, currency: 'USD', invoice: `DEMO-${Date.now()}` },
          billingAddress: { country: 'USA' },
        },
      },
    });
    const payment = paid.status === 201 ? paid.body.data : undefined;
    const failed = paid.body?.meta?.transaction;
    log.info({ status: paid.status, paymentId: payment?.id ?? paid.body?.meta?.paymentId }, 'demo shop payment');
    return c.json(
      payment
        ? {
            paymentId: payment.id,
            status: payment.attributes.status,
            amount: payment.attributes.transaction.amount,
            message: payment.attributes.transaction.message,
            card: payment.attributes.card,
          }
        : {
            paymentId: paid.body?.meta?.paymentId ?? null,
            status: 'failed',
            code: paid.body?.errors?.[0]?.code,
            message: failed?.message ?? paid.body?.errors?.[0]?.detail,
          },
      payment ? 201 : 402,
    );
  });

  // The payment's status now (GET /payments/status/{id} with the shop's credentials).
  app.get('/demo/checkout/payments/:id', async (c) => {
    const read = await call(api, 'GET', `/payments/status/${encodeURIComponent(c.req.param('id'))}`, await headers());
    if (read.status !== 200) return c.json({ error: 'unknown payment' }, 404);
    return c.json({ paymentId: read.body.data.id, status: read.body.data.attributes.status });
  });

  const listening: { server: Server; port: number } = await listen(
    app.fetch,
    deps.port ?? config.DEMO_PORT,
    deps.hostname ?? '0.0.0.0',
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
