import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../fixtures/merchants';
import { cards, createCardToken, createPayment, tokenv3Body } from '../../fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { consoleClient } from './console-client';

/**
 * The console's Developers section, in-process: apps and keys (never a key), events and their redelivery, the
 * request log, and a new webhook endpoint. Each page lists what the API says; another account's event and request
 * are the 404 page; a card number, its code and the account's keys sent in requests never reach a page; hostile
 * text (an invoice in an event, a request's path and Idempotency-Key, a webhook description) is rendered as text;
 * creating an endpoint and Redeliver need the CSRF token.
 */

const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;';

let stack: TestStack;
let acme: Credentials;
let globex: Credentials;
let paymentId: string;
/** acme's payment.created event of that payment, whose invoice is hostile. */
let eventId: string;
/** acme's requests in the log: the card token's, the payment's, a refused one, and /auth/key's. */
let tokenRequest: string;
let paymentRequest: string;
let badRequest: string;
let keyRequest: string;
let paymentKey: string;
/** acme's endpoint taking payment events, made through the API. */
let endpointId: string;

/** The page's text as a reader sees it: markup gone, entities read (to look for a secret however it is escaped). */
const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The id of acme's logged request made with this x-request-id, once the log is written. */
async function loggedRequest(requestId: string) {
  await stack.requestLog?.flush();
  const [row] = await stack.sql`select id from request_log where client_request_id = ${requestId}`;
  expect(row, requestId).toBeDefined();
  return row!.id as string;
}

beforeAll(async () => {
  stack = await createTestStack({ requestLog: true });
  [acme, globex] = await Promise.all([stack.createAccount('Acme'), stack.createAccount('Globex')]);
  const merchantId = await createMerchant(stack, acme);

  const tokenId = await createCardToken(stack, acme, cards.visa);
  paymentKey = randomUUID();
  const paid = await stack.call('POST', '/payments', {
    as: acme,
    headers: { 'x-request-id': 'console-payment' },
    body: tokenv3Body({
      merchantId,
      tokenId,
      requestId: paymentKey,
      attributes: { miscData: `note ${acme.apiKey}` },
    }),
  });
  expect(paid.status, JSON.stringify(paid.body)).toBe(201);
  paymentId = paid.body.data.id;
  // The invoice is hostile: it goes into the payment's events.
  await createPayment(
    stack,
    acme,
    tokenv3Body({ merchantId, tokenId, attributes: { transaction: { amount: '700', currency: 'USD', invoice: XSS } } }),
  );

  // A token request with the card number and its code, as a client sends it: the log keeps neither.
  const token = await stack.call('POST', '/tokens', {
    as: acme,
    headers: { 'x-request-id': 'console-token' },
    body: {
      data: {
        type: 'tokens',
        attributes: {
          tokenType: 'card',
          card: { holder: 'Jane Doe', number: cards.mastercard, expiry: '1230', code: '987' },
        },
      },
    },
  });
  expect(token.status, JSON.stringify(token.body)).toBe(201);

  // A refused payment, its Idempotency-Key hostile; and a path no URL parser would pass, as a raw request's.
  const bad = await stack.call('POST', '/payments', {
    as: acme,
    headers: { 'x-request-id': 'console-bad', 'idempotency-key': XSS },
    body: tokenv3Body({ merchantId, tokenId, amount: '-5' }),
  });
  expect(bad.status).toBe(400);
  stack.requestLog?.record({
    accountId: acme.accountId,
    method: 'GET',
    url: `http://localhost/payments/${XSS}`,
    status: 404,
    requestId: 'console-hostile-path',
    clientChoseId: true,
    idempotencyKey: undefined,
    startedAt: Date.now(),
    durationMs: 3,
    requestBody: undefined,
    responseBody: undefined,
  });

  const created = await stack.call('POST', '/webhooks', {
    as: acme,
    body: { data: { type: 'webhooks', attributes: { url: 'https://example.com/hooks', events: ['payment.created'] } } },
  });
  expect(created.status).toBe(201);
  endpointId = created.body.data.id;

  [tokenRequest, paymentRequest, badRequest] = await Promise.all([
    loggedRequest('console-token'),
    loggedRequest('console-payment'),
    loggedRequest('console-bad'),
  ]);
  const [key] = await stack.sql`
    select id from request_log where account_id = ${acme.accountId} and path = '/auth/key'`;
  keyRequest = key!.id;
  const events = await stack.call('GET', `/events?type=payment.created&limit=100`, { as: acme });
  eventId = events.body.data.find((event: { attributes: { payload: unknown } }) =>
    JSON.stringify(event.attributes.payload).includes('<script>'),
  ).id;
}, 60_000);
afterAll(async () => {
  await stack?.close();
});

const signedIn = async (as: Credentials) => {
  const browser = consoleClient(stack);
  await browser.signIn(as.apiKey);
  return browser;
};

/** No card number, code or key of acme's anywhere in a page. */
function expectNoSecret(html: string) {
  const text = textOf(html);
  for (const secret of [cards.visa, cards.mastercard, acme.apiKey, acme.appKey, acme.appToken]) {
    expect(text).not.toContain(secret);
  }
  expect(text).not.toContain('"code": "987"');
}

describe('apps and keys', () => {
  it('lists the account’s apps and says how to replace a key, never showing one', async () => {
    const browser = await signedIn(acme);
    const page = await browser.get('/console/developers');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<caption>Apps of this account, oldest first</caption>');
    const [app] = await stack.sql`select id, name, key_version from apps where account_id = ${acme.accountId}`;
    expect(page.text).toContain(`<th scope="row">${app!.id}</th><td>${app!.name}</td><td>${app!.key_version}</td>`);
    expect(page.text).toContain('POST /auth/key');
    expect(page.text).toContain('aria-current="page">Apps and keys</a>');
    expectNoSecret(page.text);
    expect(page.text).not.toMatch(/sk_test_|ak_\w{10}|eyJ/);
  });
});

describe('events', () => {
  it('lists the account’s events newest first, filtered by type and resource', async () => {
    const browser = await signedIn(acme);
    const api = await stack.call('GET', '/events?limit=50', { as: acme });
    const page = await browser.get('/console/events');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<caption>Events, newest first</caption>');
    const listed = [...page.text.matchAll(/<th scope="row"><a href="\/console\/events\/(evt_\w+)">/g)].map((m) => m[1]);
    expect(listed).toEqual(api.body.data.map((event: { id: string }) => event.id));

    const byType = await browser.get('/console/events?type=payment.created');
    const types = [...byType.text.matchAll(/<td>(\w+\.\w+)<\/td>/g)].map((m) => m[1]);
    expect(types.length).toBeGreaterThan(0);
    expect(new Set(types)).toEqual(new Set(['payment.created']));
    expect(byType.text).toContain('<option value="payment.created" selected="">payment.created</option>');

    const byResource = await browser.get(`/console/events?resourceId=${paymentId}`);
    expect(byResource.text).toContain(`href="/console/payments/${paymentId}"`);
    const resources = [...byResource.text.matchAll(/href="\/console\/payments\/(pay_\w+)"/g)].map((m) => m[1]);
    expect(new Set(resources)).toEqual(new Set([paymentId]));

    // From a cursor: the events after it; a type the API does not know, its refusal.
    const after = await browser.get(`/console/events?after=${listed[0]}`);
    expect(after.text).not.toContain(`href="/console/events/${listed[0]}"`);
    expect(after.text).toContain(`href="/console/events/${listed[1]}"`);
    expect(after.text).toContain('First page');
    const unknown = await browser.get('/console/events?type=nonsense');
    expect(unknown.text).toContain('role="alert"');
    expect(unknown.text).toContain('is not an event type');
  });

  it('shows an event: its payload as escaped JSON, a link to its payment, and Redeliver', async () => {
    const browser = await signedIn(acme);
    const page = await browser.get(`/console/events/${eventId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<pre class="code" role="region" aria-label="Payload of the event" tabindex="0">');
    expect(page.text).toMatch(/href="\/console\/payments\/pay_\w+"/);
    expect(page.text).not.toContain('<script>alert');
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain(ESCAPED);
    expect(textOf(page.text)).toContain(`"invoice": ${JSON.stringify(XSS)}`);
    expect(page.text).toContain(`action="/console/events/${eventId}/redeliver"`);

    // The API key a client typed into a payment's metadata is in its events; the page redacts it.
    const events = await stack.call('GET', `/events?resourceId=${paymentId}&type=payment.created`, { as: acme });
    expect(JSON.stringify(events.body.data[0].attributes.payload)).toContain(acme.apiKey);
    const withKey = await browser.get(`/console/events/${events.body.data[0].id}`);
    expect(withKey.status).toBe(200);
    expect(textOf(withKey.text)).toContain('"miscData": "note [redacted]"');
    expectNoSecret(withKey.text);
  });

  it('answers another account’s event with the 404 page, and refuses its Redeliver', async () => {
    const browser = await signedIn(globex);
    const page = await browser.get(`/console/events/${eventId}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain('Not found');
    expect((await browser.get('/console/events')).text).not.toContain(eventId);
    const posted = await browser.post(`/console/events/${eventId}/redeliver`, {
      _csrf: browser.hidden(page.text, '_csrf'),
      confirm: 'yes',
    });
    expect(posted.status).toBe(404);
    expect(await stack.sql`select id from webhook_deliveries where event_id = ${eventId}`).toHaveLength(0);
  });

  it('Redeliver needs the CSRF token, and a confirmation; then the event goes to the endpoints again', async () => {
    const browser = await signedIn(acme);
    const deliveries = () => stack.sql`select endpoint_id, status from webhook_deliveries where event_id = ${eventId}`;
    const before = await deliveries();
    const forged = await browser.post(`/console/events/${eventId}/redeliver`, { confirm: 'yes' });
    expect(forged.status).toBe(403);
    expect(await deliveries()).toEqual(before);

    const page = await browser.get(`/console/events/${eventId}`);
    const csrf = browser.hidden(page.text, '_csrf');
    const confirm = await browser.post(`/console/events/${eventId}/redeliver`, { _csrf: csrf });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Confirm redelivery');
    expect(await deliveries()).toEqual(before);

    const done = await browser.post(`/console/events/${eventId}/redeliver`, { _csrf: csrf, confirm: 'yes' });
    expect([done.status, done.headers.get('location')]).toEqual([
      303,
      `/console/events/${eventId}?done=redelivered&to=1`,
    ]);
    expect(await deliveries()).toEqual([{ endpoint_id: endpointId, status: 'pending' }]);
    const shown = await browser.get(done.headers.get('location') as string);
    expect(shown.text).toContain('Redelivery queued to 1 endpoint.');
  });
});

describe('the request log', () => {
  it('lists the account’s requests as GET /requests does, with their filters', async () => {
    const browser = await signedIn(acme);
    // The earlier tests' calls are written by the log's thread as it gets to them: all of them, before both lists.
    await stack.requestLog?.flush();
    const page = await browser.get('/console/requests');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<caption>Requests, newest first</caption>');
    const api = await stack.call('GET', '/requests?limit=50', { as: acme });
    const listed = [...page.text.matchAll(/<th scope="row"><a href="\/console\/requests\/(req_\w+)">/g)].map(
      (m) => m[1],
    );
    expect(listed).toEqual(api.body.data.map((request: { id: string }) => request.id));
    // The payment's row: method, path, status, x-request-id, Idempotency-Key.
    expect(page.text).toContain(
      `<a href="/console/requests/${paymentRequest}">${paymentRequest}</a></th><td>POST</td><td>/payments</td>` +
        `<td><span class="status completed">201</span></td><td>console-payment</td><td>${paymentKey}</td>`,
    );

    const refused = await browser.get('/console/requests?status=400');
    const statuses = [...refused.text.matchAll(/<span class="status \w+">(\d+)<\/span>/g)].map((m) => m[1]);
    expect(statuses).toEqual(['400']);
    expect(refused.text).toContain(`href="/console/requests/${badRequest}"`);
    expect(refused.text).toContain('value="400"');

    const byPath = await browser.get('/console/requests?path=%2Ftokens');
    expect(byPath.text).toContain(`href="/console/requests/${tokenRequest}"`);
    expect(byPath.text).not.toContain(`href="/console/requests/${paymentRequest}"`);
    const byId = await browser.get('/console/requests?requestId=console-payment');
    const one = [...byId.text.matchAll(/href="\/console\/requests\/(req_\w+)"/g)].map((m) => m[1]);
    expect(one).toEqual([paymentRequest]);

    const wrong = await browser.get('/console/requests?status=abc');
    expect(wrong.text).toContain('role="alert"');
    expect(wrong.text).toContain('status must be a status code (404) or a class of them (4xx)');
    const after = await browser.get(`/console/requests?after=${listed[0]}`);
    expect(after.text).not.toContain(`href="/console/requests/${listed[0]}"`);
    expect(after.text).toContain(`href="/console/requests/${listed[1]}"`);
  });

  it('shows a request with its bodies as escaped JSON', async () => {
    const browser = await signedIn(acme);
    const page = await browser.get(`/console/requests/${paymentRequest}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<pre class="code" role="region" aria-label="Request body (JSON)" tabindex="0">');
    const text = textOf(page.text);
    expect(text).toContain('"paymentType": "tokenv3"');
    expect(text).toContain(`"id": "${paymentId}"`);
    expectNoSecret(page.text);
  });

  it('never shows a card number, its code or a key sent in a request', async () => {
    const browser = await signedIn(acme);
    for (const id of [tokenRequest, paymentRequest, keyRequest]) {
      const page = await browser.get(`/console/requests/${id}`);
      expect(page.status, id).toBe(200);
      expectNoSecret(page.text);
    }
    const token = textOf((await browser.get(`/console/requests/${tokenRequest}`)).text);
    expect(token).toContain('"number": "[redacted]"');
    expect(token).toContain('"code": "[redacted]"');
    expect(token).toContain('"holder": "Jane Doe"');
    expectNoSecret((await browser.get('/console/requests')).text);
  });

  it('renders a hostile path and Idempotency-Key as text', async () => {
    const browser = await signedIn(acme);
    const hostile = await loggedRequest('console-hostile-path');
    for (const path of ['/console/requests', `/console/requests/${hostile}`, `/console/requests/${badRequest}`]) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(200);
      expect(page.text, path).not.toContain('<script>alert');
      expect(page.text, path).not.toContain('<img src=x');
    }
    expect((await browser.get(`/console/requests/${hostile}`)).text).toContain(`/payments/${ESCAPED}`);
    expect((await browser.get(`/console/requests/${badRequest}`)).text).toContain(ESCAPED);
  });

  it('answers another account’s request with the 404 page, and never lists it', async () => {
    const browser = await signedIn(globex);
    for (const id of [paymentRequest, tokenRequest, 'req_nonsense']) {
      const page = await browser.get(`/console/requests/${id}`);
      expect(page.status, id).toBe(404);
      expect(page.text).toContain('Not found');
    }
    const list = await browser.get('/console/requests?path=%2F');
    expect(list.text).not.toContain(paymentRequest);
    // acme's request as a cursor is no item of globex's list: the API's refusal.
    const cursor = await browser.get(`/console/requests?after=${paymentRequest}`);
    expect(cursor.text).toContain('role="alert"');
    expect(cursor.text).not.toContain('console-payment');
  });
});

describe('a new webhook endpoint', () => {
  const endpoints = async () =>
    (await stack.sql`select count(*)::int as n from webhook_endpoints where account_id = ${acme.accountId}`)[0]!.n;

  it('needs the CSRF token: without it 403 and nothing created', async () => {
    const browser = await signedIn(acme);
    const before = await endpoints();
    const forged = await browser.post('/console/webhooks', {
      url: 'https://example.com/forged',
      'event:payment.created': 'on',
    });
    expect(forged.status).toBe(403);
    expect(await endpoints()).toBe(before);
  });

  it('shows the API’s errors by their field, and keeps what was typed', async () => {
    const browser = await signedIn(acme);
    const form = await browser.get('/console/webhooks/new');
    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="url">URL</label>');
    expect(form.text).toContain('<legend>Events</legend>');
    expect(form.text).toContain('<label for="event-payment-created">payment.created</label>');
    expect(form.text).toContain('<label for="description">Description</label>');
    const before = await endpoints();
    const refused = await browser.post('/console/webhooks', {
      _csrf: browser.hidden(form.text, '_csrf'),
      url: 'ftp://example.com/x',
      description: XSS,
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('role="alert"');
    expect(refused.text).toMatch(/<p id="url-error" class="notice error">url must use http or https<\/p>/);
    expect(refused.text).toContain('id="events-error"');
    expect(refused.text).toContain('value="ftp://example.com/x"');
    expect(refused.text).toContain(`value="${ESCAPED}"`);
    expect(refused.text).not.toContain('<script>alert');
    expect(await endpoints()).toBe(before);
  });

  it('creates the endpoint, then shows its page (never the signing secret), its description as text', async () => {
    const browser = await signedIn(acme);
    const list = await browser.get('/console/webhooks');
    expect(list.text).toContain('href="/console/webhooks/new"');
    const form = await browser.get('/console/webhooks/new');
    const created = await browser.post('/console/webhooks', {
      _csrf: browser.hidden(form.text, '_csrf'),
      url: 'https://example.com/console-made',
      'event:payment.created': 'on',
      'event:dispute.created': 'on',
      description: XSS,
    });
    const [row] = await stack.sql`
      select id, events, description from webhook_endpoints where url = 'https://example.com/console-made'`;
    expect(row).toMatchObject({ events: ['payment.created', 'dispute.created'], description: XSS });
    // Post, then redirect: a reload of the page it lands on makes no second endpoint.
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe(`/console/webhooks/${row!.id}?done=created`);
    const landed = await browser.get(created.headers.get('location') as string);
    expect(landed.text).toContain('Endpoint created.');
    expect(landed.text).toContain(`POST /webhooks/${row!.id}/rotate-secret`);
    expect(landed.text).not.toContain('whsec_');

    const page = await browser.get(`/console/webhooks/${row!.id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('whsec_');
    expect(page.text).toContain(ESCAPED);
    expect(page.text).not.toContain('<script>alert');
  });
});
