import { createDataCipher, runDisputes, SandboxProcessor } from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import { settleAtFor } from '@pps/shared/clock';
import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../fixtures/merchants';
import { createCardToken, createPayment, setClock, tokenv3Body } from '../../fixtures/payments';
import { type Receiver, startReceiver } from '../../fixtures/receiver';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { waitFor } from '../../wait';
import { consoleClient } from './console-client';

/**
 * The console's Disputes and Webhooks sections, in-process: each page for its owner, another account's ids answered
 * 404, CSRF on evidence, acceptance and Resend (403 and nothing changed without it), submission and acceptance
 * confirmed first, and evidence text and a webhook URL rendered as text.
 */

const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const CHARGEBACK_CARD = '4000000000000259';
const log = createLogger({ level: 'silent' });

let stack: TestStack;
let receiver: Receiver;
let acme: Credentials;
let globex: Credentials;
/** Two chargebacks of acme's: one answered with evidence, one accepted. */
let answered: string;
let accepted: string;
let paymentId: string;
/** acme's endpoint whose receiver answers 500, its failed delivery's event, and an endpoint with a hostile URL. */
let failing: string;
let failedEvent: string;
let hostile: string;

/** What the settlement worker does when the clock moves: settle what is due, then the disputes. */
async function pass(accountId: string) {
  const deps = {
    db: stack.db,
    config: stack.config,
    cipher: createDataCipher(stack.config),
    processor: new SandboxProcessor({ db: stack.db }),
    log,
  };
  await runSettlementPass(deps, { now: new Date(), batchSize: 100, accountId });
  return runDisputes(deps, { now: new Date(), accountId });
}

/** Two settled payments of the chargeback card, disputed the business day after: their disputes' ids. */
async function twoChargebacks(as: Credentials) {
  const merchantId = await createMerchant(stack, as);
  const payments = [];
  for (const _ of [1, 2]) {
    const tokenId = await createCardToken(stack, as, CHARGEBACK_CARD);
    payments.push((await createPayment(stack, as, tokenv3Body({ merchantId, tokenId, amount: '5000' }))).body.data);
  }
  await setClock(stack, as, new Date(new Date(payments[1].attributes.settleAt).getTime() + 1000));
  await pass(as.accountId);
  const [settled] = await stack.sql`select max(settled_at) as at from payments where id in ${stack.sql(
    payments.map((payment) => payment.id),
  )}`;
  await setClock(stack, as, new Date(settleAtFor(new Date(settled!.at), 1).getTime() + 1000));
  expect((await pass(as.accountId)).opened).toBe(2);
  const listed = await stack.call('GET', '/disputes', { as });
  return listed.body.data as { id: string; attributes: { paymentId: string } }[];
}

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.answer('/fail', () => ({ status: 500, body: 'receiver down' }));
  stack = await createTestStack({
    webhooks: true,
    env: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1', WEBHOOK_TIMEOUT_MS: '2000', OUTBOX_POLL_INTERVAL_MS: '200' },
  });
  [acme, globex] = await Promise.all([stack.createAccount('Acme'), stack.createAccount('Globex')]);

  const subscribe = async (url: string, events: string[]) => {
    const created = await stack.call('POST', '/webhooks', {
      as: acme,
      body: { data: { type: 'webhooks', attributes: { url, events } } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data.id as string;
  };
  failing = await subscribe(receiver.url('/fail'), ['payment.created']);
  // The URL validator takes a query string as it is: the console must show it as text.
  hostile = await subscribe(`https://example.com/h?x=${XSS}`, ['payout.failed']);

  const [first, second] = await twoChargebacks(acme);
  [answered, accepted, paymentId] = [first!.id, second!.id, first!.attributes.paymentId];
  const delivery = await waitFor(
    () => stack.sql`select event_id, status from webhook_deliveries where endpoint_id = ${failing} limit 1`,
    { until: (rows) => rows[0]?.status === 'failed', what: 'a failed delivery to /fail', timeoutMs: 30_000 },
  );
  failedEvent = delivery[0]!.event_id;
}, 90_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const signedIn = async (as: Credentials) => {
  const browser = consoleClient(stack);
  await browser.signIn(as.apiKey);
  return browser;
};
const evidenceOf = async (id: string) => (await stack.sql`select evidence from disputes where id = ${id}`)[0]?.evidence;
const disputeStatus = async (id: string) => (await stack.sql`select status from disputes where id = ${id}`)[0]?.status;
/** The failed delivery's counts (the endpoint has a delivery of each payment; this is the one Resend names). */
const redeliveries = async () =>
  (
    await stack.sql`
      select redeliveries, attempts from webhook_deliveries
      where endpoint_id = ${failing} and event_id = ${failedEvent}`
  )[0];

describe('disputes', () => {
  it('lists the disputes needing a response first, and shows each with its evidence form', async () => {
    const browser = await signedIn(acme);
    const list = await browser.get('/console/disputes');
    expect(list.status).toBe(200);
    expect(list.text).toContain('<caption>Disputes needing a response, soonest due first</caption>');
    expect(list.text).toContain(`href="/console/disputes/${answered}"`);
    expect(list.text).toContain('aria-current="page">Disputes</a>');
    const page = await browser.get(`/console/disputes/${answered}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="/console/payments/${paymentId}"`);
    expect(page.text).toContain('<label for="evidence-productDescription">Product description</label>');
    expect(page.text).toContain('Save evidence');
    expect(page.text).toContain('Accept…');
  });

  it('answers another account’s dispute with the 404 page, and refuses its forms', async () => {
    const browser = await signedIn(globex);
    const page = await browser.get(`/console/disputes/${answered}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain('Not found');
    const list = await browser.get('/console/disputes');
    expect(list.text).not.toContain(answered);
    const csrf = browser.hidden(list.text, '_csrf');
    const posted = await browser.post(`/console/disputes/${accepted}/accept`, { _csrf: csrf, confirm: 'yes' });
    expect(posted.status).toBe(404);
    expect(await disputeStatus(accepted)).toBe('needs_response');
  });

  it('evidence needs the CSRF token: without it 403 and nothing saved', async () => {
    const browser = await signedIn(acme);
    const forged = await browser.post(`/console/disputes/${answered}/evidence`, {
      productDescription: 'forged',
      action: 'submit',
      confirm: 'yes',
    });
    expect(forged.status).toBe(403);
    expect(await evidenceOf(answered)).toEqual({});
    expect(await disputeStatus(answered)).toBe('needs_response');
    const accept = await browser.post(`/console/disputes/${accepted}/accept`, { confirm: 'yes' });
    expect(accept.status).toBe(403);
    expect(await disputeStatus(accepted)).toBe('needs_response');
  });

  it('saves evidence as text, then submits it after a confirmation: under review', async () => {
    const browser = await signedIn(acme);
    const page = await browser.get(`/console/disputes/${answered}`);
    const csrf = browser.hidden(page.text, '_csrf');
    const saved = await browser.post(`/console/disputes/${answered}/evidence`, {
      _csrf: csrf,
      productDescription: 'Hand-thrown mug',
      customerCommunication: XSS,
      action: 'save',
    });
    expect([saved.status, saved.headers.get('location')]).toEqual([303, `/console/disputes/${answered}?done=saved`]);
    expect(await evidenceOf(answered)).toMatchObject({
      productDescription: 'Hand-thrown mug',
      customerCommunication: XSS,
    });
    const shown = await browser.get(saved.headers.get('location') as string);
    expect(shown.text).toContain('Evidence saved.');
    expect(shown.text).not.toContain('<script>alert');
    expect(shown.text).not.toContain('<img src=x');
    expect(shown.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');

    const confirm = await browser.post(`/console/disputes/${answered}/evidence`, {
      _csrf: csrf,
      uncategorizedText: 'winning_evidence',
      action: 'submit',
    });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Confirm submission');
    expect(confirm.text).not.toContain('<script>alert');
    expect(await disputeStatus(answered)).toBe('needs_response');
    const done = await browser.post(`/console/disputes/${answered}/evidence`, { _csrf: csrf, confirm: 'yes' });
    expect([done.status, done.headers.get('location')]).toEqual([303, `/console/disputes/${answered}?done=submitted`]);
    expect(await disputeStatus(answered)).toBe('under_review');
    const after = await browser.get(done.headers.get('location') as string);
    expect(after.text).toContain('Evidence submitted to the bank.');
    expect(after.text).not.toContain('Save evidence');

    // Submitted twice: the API's refusal, shown as a notice.
    const again = await browser.post(`/console/disputes/${answered}/evidence`, { _csrf: csrf, confirm: 'yes' });
    expect(again.status).toBe(422);
    expect(again.text).toContain('role="alert"');
    expect(again.text).toContain('Submitting was refused:');
  });

  it('accepts a dispute after a confirmation: lost', async () => {
    const browser = await signedIn(acme);
    const page = await browser.get(`/console/disputes/${accepted}`);
    const csrf = browser.hidden(page.text, '_csrf');
    const confirm = await browser.post(`/console/disputes/${accepted}/accept`, { _csrf: csrf });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Confirm acceptance');
    expect(await disputeStatus(accepted)).toBe('needs_response');
    const done = await browser.post(`/console/disputes/${accepted}/accept`, { _csrf: csrf, confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(await disputeStatus(accepted)).toBe('lost');
    const list = await browser.get('/console/disputes');
    expect(list.text).toContain('No dispute needs a response.');
    expect(list.text).toContain('<caption>Disputes under review or closed, newest first</caption>');
  });
});

describe('webhooks', () => {
  it('lists the endpoints and shows each with its deliveries and attempts, never its secret', async () => {
    const browser = await signedIn(acme);
    const list = await browser.get('/console/webhooks');
    expect(list.status).toBe(200);
    expect(list.text).toContain(`href="/console/webhooks/${failing}"`);
    expect(list.text).toContain('Developers');
    const page = await browser.get(`/console/webhooks/${failing}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(failedEvent);
    expect(page.text).toContain(`<caption>Attempts of ${failedEvent}, oldest first</caption>`);
    expect(page.text).toContain('<td>500</td>');
    expect(page.text).not.toContain('whsec_');
  });

  it('renders a hostile URL as text', async () => {
    const browser = await signedIn(acme);
    for (const path of ['/console/webhooks', `/console/webhooks/${hostile}`]) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(200);
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).not.toContain('<img src=x');
      expect(page.text).toContain('https://example.com/h?x=&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  it('answers another account’s endpoint with the 404 page, and refuses its Resend', async () => {
    const browser = await signedIn(globex);
    const page = await browser.get(`/console/webhooks/${failing}`);
    expect(page.status).toBe(404);
    const before = await redeliveries();
    const csrf = browser.hidden(page.text, '_csrf');
    const posted = await browser.post(`/console/webhooks/${failing}/events/${failedEvent}/resend`, { _csrf: csrf });
    expect(posted.status).toBe(404);
    expect(await redeliveries()).toEqual(before);
  });

  it('Resend needs the CSRF token; with it the delivery is redelivered, with a notice', async () => {
    const browser = await signedIn(acme);
    const before = await redeliveries();
    const forged = await browser.post(`/console/webhooks/${failing}/events/${failedEvent}/resend`, {});
    expect(forged.status).toBe(403);
    expect(await redeliveries()).toEqual(before);

    const page = await browser.get(`/console/webhooks/${failing}`);
    const resent = await browser.post(`/console/webhooks/${failing}/events/${failedEvent}/resend`, {
      _csrf: browser.hidden(page.text, '_csrf'),
    });
    expect([resent.status, resent.headers.get('location')]).toEqual([
      303,
      `/console/webhooks/${failing}?done=resent&record=${failedEvent}`,
    ]);
    expect((await redeliveries())?.redeliveries).toBe(before!.redeliveries + 1);
    const shown = await browser.get(resent.headers.get('location') as string);
    expect(shown.text).toContain(`Delivery queued again: ${failedEvent}`);
  });

  it('disables and enables the endpoint, with the CSRF token', async () => {
    const browser = await signedIn(acme);
    const page = await browser.get(`/console/webhooks/${hostile}`);
    const csrf = browser.hidden(page.text, '_csrf');
    expect((await browser.post(`/console/webhooks/${hostile}/enabled`, { enabled: 'false' })).status).toBe(403);
    const off = await browser.post(`/console/webhooks/${hostile}/enabled`, { _csrf: csrf, enabled: 'false' });
    expect(off.status).toBe(303);
    const [row] = await stack.sql`select enabled from webhook_endpoints where id = ${hostile}`;
    expect(row?.enabled).toBe(false);
    const shown = await browser.get(off.headers.get('location') as string);
    expect(shown.text).toContain('Endpoint disabled.');
    expect(shown.text).toContain('Enable endpoint');
    const on = await browser.post(`/console/webhooks/${hostile}/enabled`, { _csrf: csrf, enabled: 'true' });
    expect(on.status).toBe(303);
    const [again] = await stack.sql`select enabled from webhook_endpoints where id = ${hostile}`;
    expect(again?.enabled).toBe(true);
  });
});
