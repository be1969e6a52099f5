import { createDatabaseFromTemplate } from '@pps/shared/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startNpmStart } from '../start-process';
import { launchChromium, newContext, open, paidPage, payButton, typeCard, VISA } from './shop-page';

/**
 * The demo shop as `npm start` runs it (a real process, scripts/start.ts), judged by what a reader of its output can
 * do: the shop's payment is found with the export line it printed. On a first start that is the demo account's line;
 * started again on the same database, the demo account's key is no longer known, and the output says the shop
 * charges its own account and prints that account's line instead.
 */

let browser: Browser;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await browser?.close();
});

/** A database of its own, kept from one start to the next as a developer's "pps" is. */
async function newDatabase(): Promise<string> {
  const database = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  stops.push(database.drop);
  return database.url;
}

async function npmStart(databaseUrl: string) {
  const started = await startNpmStart({ env: { DATABASE_URL: databaseUrl } });
  stops.push(started.stop);
  return started;
}

/** The last `export API=… KEY=… APP=…` line of an output, as a reader pastes it. */
function exportLine(output: string) {
  const line = [...output.matchAll(/^export API=(\S+) KEY=(sk_test_[\w-]+) APP=(app_\w+)$/gm)].at(-1);
  expect(line, output).toBeDefined();
  const [, api, key, app] = line!;
  return { api: api!, key: key!, app: app! };
}

/** README's steps 1 to 3 with an export line: app key, app token, and the four headers. */
async function readerHeaders({ api, key, app }: ReturnType<typeof exportLine>) {
  const post = async (path: string, attributes: Record<string, string>) => {
    const response = await fetch(`${api}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { type: 'auth', attributes } }),
    });
    expect(response.status).toBe(201);
    return (await response.json()).data.attributes;
  };
  const { appKey } = await post('/auth/key', { appId: app });
  const { appToken } = await post('/auth/token', { appKey });
  return { authorization: `Bearer ${appToken}`, 'x-api-key': key, appid: app };
}

const getPayment = async (api: string, paymentId: string, headers: Record<string, string>) => {
  const response = await fetch(`${api}/payments/${paymentId}`, { headers });
  return { status: response.status, body: await response.json() };
};

/** An order of the shop paid with the sandbox Visa through its server, as its page does (demo.slow.test.ts). */
async function payThroughShop(shop: string, api: string): Promise<string> {
  const post = async (url: string, body: unknown, headers: Record<string, string> = { origin: shop }) =>
    (
      await fetch(url.startsWith('/') ? `${shop}${url}` : url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })
    ).json();
  const opened = await fetch(`${shop}/demo/checkout`, { redirect: 'manual' });
  const orderId = new URL(opened.headers.get('location')!, shop).searchParams.get('order')!;
  const session = await post('/demo/checkout/session', { orderId });
  const card = { holder: 'Jane Buyer', number: VISA, expiry: '1230', code: '123' };
  const token = await post(
    `${api}/checkout/sessions/${session.sessionId}/tokens`,
    { data: { type: 'tokens', attributes: { tokenType: 'card', card } } },
    { 'x-client-secret': session.clientSecret },
  );
  const paid = await post('/demo/checkout/pay', {
    orderId,
    tokenId: token.data.id,
    holder: 'Jane Buyer',
    expiry: '1230',
  });
  expect(paid).toMatchObject({ outcome: 'paid', paymentId: expect.stringMatching(/^pay_/) });
  return paid.paymentId;
}

describe("npm start's demo shop", () => {
  it("charges the demo account it printed: the reader's credentials find the payment id the page shows", async () => {
    const started = await npmStart(await newDatabase());
    const output = started.output();
    expect(output).toContain('Demo account created (shown once):');
    const demo = exportLine(output);
    const accountId = /^It charges the demo account above \((acct_\w+)\)/m.exec(output)?.[1];
    expect(accountId, output).toBeDefined();
    // The reader follows README first: a new app key for the printed app, which the shop's app does not share.
    const headers = await readerHeaders(demo);
    expect((await (await fetch(`${demo.api}/auth`, { headers })).json()).data.attributes.accountId).toBe(accountId);

    const context = await newContext(browser);
    try {
      const { page, failures } = await open(context, `http://localhost:${started.demoPort}/demo/checkout`);
      await typeCard(page, VISA);
      await payButton(page).click();
      const paymentId = await paidPage(page);
      const found = await getPayment(demo.api, paymentId, headers);
      expect(found.status).toBe(200);
      expect(found.body.data).toMatchObject({ id: paymentId, attributes: { status: 'pending' } });
      expect(failures).toEqual([]);
    } finally {
      await context.close();
    }
    // Nothing printed or logged an app key or token; the only API key printed is the demo account's.
    expect(new Set(started.output().match(/sk_test_[\w-]+/g))).toEqual(new Set([demo.key]));
    expect(started.output()).not.toMatch(/ak_[\w-]{8,}|eyJ[\w-]+\.eyJ/);
  }, 90_000);

  it('started again, says it charges its own account, and prints the line that finds its payments', async () => {
    const databaseUrl = await newDatabase();
    const first = await npmStart(databaseUrl);
    const demo = exportLine(first.output());
    await first.stop();
    const started = await npmStart(databaseUrl);
    const output = started.output();
    expect(output).not.toContain('Demo account created');
    expect(output).toMatch(
      /^It charges its own account, "Demo Shop" \(acct_\w+\), not the demo account:\nits key was shown only when an earlier start made it\./m,
    );
    const own = exportLine(output);
    const paymentId = await payThroughShop(`http://localhost:${started.demoPort}`, own.api);
    const found = await getPayment(own.api, paymentId, await readerHeaders(own));
    expect(found.status).toBe(200);
    expect(found.body.data.id).toBe(paymentId);
    // The demo account's line (from the first start, to this one's port) does not: the payment is not that account's.
    const demoHere = { ...demo, api: own.api };
    expect((await getPayment(own.api, paymentId, await readerHeaders(demoHere))).status).toBe(403);
  }, 90_000);
});
