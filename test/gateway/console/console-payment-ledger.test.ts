import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureBody, cards, createCardToken, createPayment, refundBody, tokenv3Body } from '../../fixtures/payments';
import { type Receiver, startReceiver } from '../../fixtures/receiver';
import { createWorld } from '../../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { waitFor } from '../../wait';
import { consoleClient } from './console-client';

/**
 * The console's payment page, in-process: its "Ledger postings" (every entry the API gives, each posting followed by
 * the total the page added up, and the records linked) and its "Webhook deliveries" (each event's deliveries with
 * the endpoint's URL as text linked to its page, a deleted endpoint by its id, status, attempts and last answer), as
 * the API says them; a payment that moved no money says so; another account's payment is the 404 page.
 */

const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';

type EntryAttributes = {
  postingId: string;
  kind: string;
  recordId: string;
  ledgerAccount: string;
  amount: string;
  balanceTransactionId: string | null;
  createdAt: string;
};

let stack: TestStack;
let receiver: Receiver;
let acme: Credentials;
let globex: Credentials;
let merchantId: string;
let paymentId: string;
let refundId: string;
let declinedId: string;
let endpoints: { ok: string; failing: string; hostile: string; gone: string };
let hostileUrl: string;

/** The text of a page's section (`<h2 id="…">` to its `</section>`). */
const section = (html: string, id: string) => {
  const start = html.indexOf(`<h2 id="${id}">`);
  expect(start, `section ${id}`).toBeGreaterThan(0);
  return html.slice(start, html.indexOf('</section>', start));
};
const text = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')
    .trim();
/** A table's body rows as people read them: each cell's text. */
const rowsOf = (html: string) =>
  [...(html.split('<tbody>')[1] ?? '').matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) =>
    [...(row ?? '').matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, cell]) => text(cell ?? '')),
  );
/** Cents as the console shows them: "−$60.00". */
const shown = (cents: string) => {
  const value = BigInt(cents);
  const abs = value < 0n ? -value : value;
  return `${value < 0n ? '−' : ''}$${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
};
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.answer('/fail', () => ({ status: 500, body: 'receiver down' }));
  stack = await createTestStack({
    webhooks: true,
    env: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1', WEBHOOK_TIMEOUT_MS: '2000', OUTBOX_POLL_INTERVAL_MS: '200' },
  });
  const world = await createWorld(stack, { account: 'Acme', other: 'Globex' });
  [acme, globex, merchantId] = [world.creds, world.other, world.merchantId];
  const subscribe = async (url: string, events: string[]) => {
    const created = await stack.call('POST', '/webhooks', {
      as: acme,
      body: { data: { type: 'webhooks', attributes: { url, events } } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data.id as string;
  };
  // The URL validator takes a query string as it is: the page must show it as text.
  hostileUrl = receiver.url(`/hostile?x=${XSS}`);
  endpoints = {
    ok: await subscribe(receiver.url('/ok'), ['*']),
    failing: await subscribe(receiver.url('/fail'), ['payment.captured']),
    hostile: await subscribe(hostileUrl, ['payment.captured']),
    gone: await subscribe(receiver.url('/gone'), ['payment.authorized']),
  };

  const authorization = tokenv3Body({
    merchantId,
    tokenId: world.tokenId,
    amount: '10000',
    attributes: { capture: false },
  });
  paymentId = (await createPayment(stack, acme, authorization)).body.data.id;
  await createPayment(stack, acme, captureBody(paymentId, '6000'));
  refundId = (await createPayment(stack, acme, refundBody(paymentId, '1000'))).body.data.id;
  const declined = await createCardToken(stack, acme, cards.doNotHonor);
  declinedId = (await createPayment(stack, acme, tokenv3Body({ merchantId, tokenId: declined }), 402)).body.meta
    .paymentId;

  // Every delivery of the payment's events done: the failing endpoint's after its retries.
  await waitFor(
    () => stack.sql`
      select d.endpoint_id, d.status from webhook_deliveries d join events e on e.id = d.event_id
      where e.resource_id = ${paymentId}`,
    {
      until: (rows) =>
        rows.some((row) => row.endpoint_id === endpoints.failing && row.status === 'failed') &&
        rows.some((row) => row.endpoint_id === endpoints.gone) &&
        rows.some((row) => row.endpoint_id === endpoints.hostile) &&
        rows.every((row) => row.status !== 'pending'),
      what: "the payment's events delivered, the failing endpoint's given up",
      timeoutMs: 30_000,
    },
  );
  expect((await stack.call('DELETE', `/webhooks/${endpoints.gone}`, { as: acme })).status).toBe(204);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const signedIn = async (as: Credentials) => {
  const browser = consoleClient(stack);
  await browser.signIn(as.apiKey);
  return browser;
};
const api = async (path: string) => {
  const answer = await stack.call('GET', path, { as: acme });
  expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body.data;
};

describe('the payment page', () => {
  it('shows the ledger postings, each posting followed by its total, as the API gives them', async () => {
    const page = await (await signedIn(acme)).get(`/console/payments/${paymentId}`);
    expect(page.status).toBe(200);
    const ledger = section(page.text, 'ledger');
    expect(ledger).toContain('<h2 id="ledger">Ledger postings</h2>');
    expect(ledger).toContain('<caption>Ledger entries in posting order, each posting followed by its total</caption>');

    const entries: { attributes: EntryAttributes }[] = await api(`/payments/${paymentId}/ledger-entries`);
    expect(entries).toHaveLength(5);
    const postings = [...new Set(entries.map(({ attributes }) => attributes.postingId))];
    const expected = postings.flatMap((postingId) => {
      const lines = entries.filter(({ attributes }) => attributes.postingId === postingId).map((e) => e.attributes);
      const first = lines[0]!;
      const posting = `${first.kind} · ${postingId}`;
      const record = first.recordId === paymentId ? 'this payment' : first.recordId;
      return [
        ...lines.map((line) => [
          line.ledgerAccount,
          posting,
          record,
          shown(line.amount),
          line.balanceTransactionId ?? '—',
          when(line.createdAt),
        ]),
        [`Total of ${postingId}`, posting, record, '$0.00 (balanced)', '', ''],
      ];
    });
    expect(rowsOf(ledger)).toEqual(expected);
    // What those rows are: the capture of 6000 (fees 204) under this payment, the refund of 1000 under its record.
    expect(rowsOf(ledger).map((row) => [row[0], row[1]?.split(' · ')[0], row[3]])).toEqual([
      ['external:card', 'capture', '−$60.00'],
      [`merchant:${merchantId}:pending`, 'capture', '$57.96'],
      ['operator:fees', 'capture', '$2.04'],
      [`Total of ${postings[0]}`, 'capture', '$0.00 (balanced)'],
      [`merchant:${merchantId}:pending`, 'refund', '−$10.00'],
      ['external:card', 'refund', '$10.00'],
      [`Total of ${postings[1]}`, 'refund', '$0.00 (balanced)'],
    ]);
    expect(ledger).toContain(`<a href="/console/payments/${refundId}">${refundId}</a>`);
    expect(text(ledger)).toContain("2 postings, 5 entries; each posting's entries sum to $0.00.");
    expect(ledger).not.toContain('role="alert"');
  });

  it('shows each event’s webhook deliveries: the endpoint’s URL as text, linked to its page', async () => {
    const page = await (await signedIn(acme)).get(`/console/payments/${paymentId}`);
    const deliveries = section(page.text, 'deliveries');
    expect(deliveries).toContain('<h2 id="deliveries">Webhook deliveries</h2>');

    const events: { id: string; attributes: { type: string } }[] = await api(
      `/events?resourceId=${paymentId}&limit=100`,
    );
    const urls: Record<string, string> = {
      [endpoints.ok]: receiver.url('/ok'),
      [endpoints.failing]: receiver.url('/fail'),
      [endpoints.hostile]: hostileUrl,
      [endpoints.gone]: `${endpoints.gone} (deleted)`,
    };
    const expected = [];
    for (const event of [...events].reverse()) {
      const listed: { attributes: Record<string, any> }[] = await api(`/events/${event.id}/deliveries?limit=100`);
      for (const { attributes: a } of listed) {
        expected.push([
          `${event.attributes.type} · ${event.id}`,
          urls[a.endpointId],
          a.status,
          String(a.attempts),
          a.lastStatusCode === null ? 'no answer' : String(a.lastStatusCode),
          when(a.updatedAt),
        ]);
      }
    }
    expect(expected.length).toBeGreaterThanOrEqual(5);
    expect(rowsOf(deliveries)).toEqual(expected);

    const captured = events.find((event) => event.attributes.type === 'payment.captured')!;
    expect(rowsOf(deliveries)).toContainEqual([
      `payment.captured · ${captured.id}`,
      receiver.url('/fail'),
      'failed',
      '3',
      '500',
      expect.any(String),
    ]);
    for (const endpointId of [endpoints.ok, endpoints.failing, endpoints.hostile]) {
      expect(deliveries).toContain(`<a href="/console/webhooks/${endpointId}">`);
    }
    // A deleted endpoint's page is gone: its id, no link.
    expect(deliveries).not.toContain(`href="/console/webhooks/${endpoints.gone}"`);
    // The hostile URL is text.
    expect(deliveries).not.toContain('<script>alert');
    expect(deliveries).not.toContain('<img src=x');
    expect(deliveries).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // The endpoint's page the link goes to.
    const endpointPage = await (await signedIn(acme)).get(`/console/webhooks/${endpoints.failing}`);
    expect(endpointPage.status).toBe(200);
  });

  it('says when a payment moved no money, and shows another account the 404 page', async () => {
    const declined = await (await signedIn(acme)).get(`/console/payments/${declinedId}`);
    expect(declined.status).toBe(200);
    expect(section(declined.text, 'ledger')).toContain('No posting: no money has moved for this payment.');

    const other = await (await signedIn(globex)).get(`/console/payments/${paymentId}`);
    expect(other.status).toBe(404);
    expect(other.text).toContain('Not found');
    expect(other.text).not.toContain('Ledger postings');
    expect(other.text).not.toContain('operator:fees');
    expect(other.text).not.toContain(receiver.url('/ok'));
  });

  it("shows a payment's 3-D Secure, never its challenge link", async () => {
    const tokenId = await createCardToken(stack, acme, '4000002760003184');
    const body = tokenv3Body({
      merchantId,
      tokenId,
      attributes: { authentication: { mode: 'automatic', returnUrl: 'https://shop.example.com/done' } },
    });
    const waiting = (await createPayment(stack, acme, body)).body.data;
    const before = await (await signedIn(acme)).get(`/console/payments/${waiting.id}`);
    expect(before.status).toBe(200);
    expect(text(before.text)).toContain("challenge: waiting for the cardholder's challenge (version 2.2.0)");
    expect(before.text).not.toContain('tds_');
    expect(before.text).not.toContain('/3ds/challenge');

    const token = new URL(waiting.attributes.nextAction.url).searchParams.get('token');
    const answer = await stack.call('POST', `/payments/${waiting.id}/authentication`, {
      as: acme,
      body: { data: { type: 'authentications', attributes: { token, outcome: 'completed' } } },
    });
    expect(answer.status).toBe(200);
    const after = await (await signedIn(acme)).get(`/console/payments/${waiting.id}`);
    expect(text(after.text)).toContain('challenge: authenticated, ECI 05 (version 2.2.0)');
  });
});
