import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, setMerchantStatus } from '../../fixtures/merchants';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { consoleClient } from './console-client';
import { payoutsWorld, SHOP_ACCOUNT_NUMBER, SHOP_EIN, SHOP_SSN } from './console-payouts-world';

/**
 * The console's Merchants and Payouts sections, in-process: each page shows what the API says (the merchant, its
 * balance, balance transactions, payouts and schedule; the payouts, one payout and its reconciliation), the schedule
 * form changes the schedule (403 and nothing changed without the CSRF token; the API's refusal beside its field), a
 * merchant name that is a script is text, nothing secret of a merchant is rendered, and another account's merchant
 * and payout are the 404 page.
 */

const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;';

let stack: TestStack;
let acme: Credentials;
let globex: Credentials;
let world: Awaited<ReturnType<typeof payoutsWorld>>;
/** A suspended merchant of acme's (the status filter), one whose schedule the form edits, and one of globex's. */
let dormant: string;
let edited: string;
let foreign: string;

beforeAll(async () => {
  stack = await createTestStack();
  [acme, globex] = await Promise.all([stack.createAccount('Acme'), stack.createAccount('Globex')]);
  world = await payoutsWorld(stack, acme, { shopName: `Shop ${XSS}` });
  [dormant, edited, foreign] = await Promise.all([
    createMerchant(stack, acme, { accountName: 'Dormant Goods' }),
    createMerchant(stack, acme, { accountName: 'Schedule Edits' }),
    createMerchant(stack, globex, { accountName: 'Globex Merchant' }),
  ]);
  await setMerchantStatus(stack, dormant, 'suspended');
}, 90_000);
afterAll(() => stack?.close());

const signedIn = async (as: Credentials) => {
  const browser = consoleClient(stack);
  await browser.signIn(as.apiKey);
  return browser;
};
const api = async (path: string, as = acme) => {
  const answer = await stack.call('GET', path, { as });
  expect(answer.status, path).toBe(200);
  return answer.body;
};
const scheduleOf = async (merchantId: string) => (await api(`/merchants/${merchantId}`)).data.attributes.payoutSchedule;
/** The text of a page's table, by its caption: its body's rows, each a list of its cells' text (tags dropped). */
function tableRows(html: string, caption: string): string[][] {
  const table = html.split(`<caption>${caption}</caption>`)[1]?.split('</table>')[0];
  if (table === undefined) throw new Error(`no table "${caption}"`);
  const body = table.split('<tbody>')[1] ?? '';
  return [...body.matchAll(/<tr>(.*?)<\/tr>/gs)].map((row) =>
    [...row[1]!.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/gs)].map((cell) => cell[1]!.replace(/<[^>]+>/g, '')),
  );
}
const dollars = (cents: string) => {
  const value = BigInt(cents);
  const abs = value < 0n ? -value : value;
  return `${value < 0n ? '−' : ''}$${(abs / 100n).toLocaleString('en-US')}.${String(abs % 100n).padStart(2, '0')}`;
};

describe('merchants', () => {
  it('lists the account’s merchants with their name, id, status and created, the name as text', async () => {
    const browser = await signedIn(acme);
    const list = await browser.get('/console/merchants');
    expect(list.status).toBe(200);
    expect(list.text).toContain('aria-current="page">Merchants</a>');
    const listed = (await api('/merchants?limit=50')).data as { id: string; attributes: { status: string } }[];
    expect(listed).toHaveLength(4);
    const rows = tableRows(list.text, 'Merchants, newest first');
    expect(rows.map((row) => [row[1], row[2]])).toEqual(
      listed.map((merchant) => [merchant.id, merchant.attributes.status]),
    );
    expect(rows.find((row) => row[1] === dormant)?.[2]).toBe('suspended');
    expect(list.text).toContain(`href="/console/merchants/${world.shopId}">Shop ${ESCAPED}</a>`);
    expect(list.text).not.toContain(XSS);
    expect(list.text).not.toContain(foreign);

    const suspended = await browser.get('/console/merchants?status=suspended');
    expect(tableRows(suspended.text, 'Merchants, newest first').map((row) => row[1])).toEqual([dormant]);
    expect(suspended.text).toContain('<option value="suspended" selected="">suspended</option>');
    const closed = await browser.get('/console/merchants?status=closed');
    expect(closed.text).toContain('No merchant has this status.');
  });

  it('shows a merchant: its fields, balance, balance transactions, payouts and schedule; nothing secret', async () => {
    const browser = await signedIn(acme);
    const page = await browser.get(`/console/merchants/${world.shopId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<h1>Shop ${ESCAPED}</h1>`);
    expect(page.text).toContain(`<title>Shop ${ESCAPED} · PPS console</title>`);
    expect(page.text).not.toContain(XSS);
    expect(page.text).toContain('<dt>Business</dt><dd>Acme Widgets LLC</dd>');
    expect(page.text).toContain('<dt>Bank</dt><dd>First Test Bank, checking account ending 4321</dd>');
    for (const secret of [SHOP_SSN, SHOP_EIN, SHOP_ACCOUNT_NUMBER, SHOP_SSN.slice(-4), SHOP_EIN.slice(-4), 'xxxx']) {
      expect(page.text).not.toContain(secret);
    }

    const balance = (await api(`/merchants/${world.shopId}/balance`)).data.attributes;
    expect(page.text).toContain(`<dt>Pending</dt><dd>${dollars(balance.pending)}</dd>`);
    expect(page.text).toContain(`<dt>Available</dt><dd>${dollars(balance.available)}</dd>`);
    expect(page.text).toContain(`<dt>In transit</dt><dd>${dollars(balance.inTransit)}</dd>`);

    const transactions = (await api(`/merchants/${world.shopId}/balance-transactions?limit=20`)).data;
    const rows = tableRows(page.text, 'Balance transactions, newest first');
    expect(rows.map((row) => [row[0], row[2], row[5]])).toEqual(
      transactions.map((t: { id: string; attributes: { type: string; net: string } }) => [
        t.id,
        t.attributes.type,
        dollars(t.attributes.net),
      ]),
    );
    expect(rows.map((row) => row[2]).sort()).toEqual(['payment', 'payment', 'payout']);
    expect(page.text).toContain(`href="/console/payments/${world.paymentIds[0]}"`);

    const payouts = tableRows(page.text, 'Latest payouts of this merchant, newest first');
    const payout = (await api(`/payouts/${world.shopPayoutId}`)).data.attributes;
    expect(payouts).toEqual([
      [world.shopPayoutId, dollars(payout.amount), 'paid', 'automatic', payout.arrivalDate, payout.traceNumber],
    ]);
    expect(page.text).toContain('Daily, as soon as the money is available.');
    expect(page.text).toContain('<option value="daily" selected="">Daily</option>');
  });

  it('pages the balance transactions from a cursor', async () => {
    const browser = await signedIn(acme);
    const transactions = (await api(`/merchants/${world.shopId}/balance-transactions?limit=20`)).data;
    const page = await browser.get(`/console/merchants/${world.shopId}?after=${transactions[0].id}`);
    expect(tableRows(page.text, 'Balance transactions, newest first').map((row) => row[0])).toEqual(
      transactions.slice(1).map((t: { id: string }) => t.id),
    );
    expect(page.text).toContain(`<a href="/console/merchants/${world.shopId}">First page</a>`);
  });
});

describe('the payout schedule form', () => {
  it('changes the schedule and says so', async () => {
    const browser = await signedIn(acme);
    const page = await browser.get(`/console/merchants/${edited}`);
    const saved = await browser.post(`/console/merchants/${edited}/payout-schedule`, {
      _csrf: browser.hidden(page.text, '_csrf'),
      interval: 'weekly',
      weeklyAnchor: 'friday',
      // The other interval's anchor is not sent: the form shows both.
      monthlyAnchor: '15',
      delayDays: '2',
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe(`/console/merchants/${edited}?done=schedule`);
    expect(await scheduleOf(edited)).toEqual({
      interval: 'weekly',
      weeklyAnchor: 'friday',
      monthlyAnchor: null,
      delayDays: 2,
    });
    const after = await browser.get(`/console/merchants/${edited}?done=schedule`);
    expect(after.text).toContain(
      '<p class="notice done" role="status">Payout schedule saved: Weekly on Friday, 2 business days after the money is available.</p>',
    );
    expect(after.text).toContain('<option value="friday" selected="">Friday</option>');
  });

  it('shows the API’s refusal beside the field it concerns, and changes nothing', async () => {
    const browser = await signedIn(acme);
    const before = await scheduleOf(edited);
    const page = await browser.get(`/console/merchants/${edited}`);
    const refused = await browser.post(`/console/merchants/${edited}/payout-schedule`, {
      _csrf: browser.hidden(page.text, '_csrf'),
      interval: 'monthly',
      weeklyAnchor: '',
      monthlyAnchor: '',
      delayDays: '45',
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('role="alert">The payout schedule was not saved. See the form below.</p>');
    expect(refused.text).toMatch(
      /<input id="schedule-monthlyAnchor"[^>]*aria-invalid="true" aria-describedby="schedule-monthlyAnchor-error schedule-monthlyAnchor-help"/,
    );
    expect(refused.text).toContain(
      '<p id="schedule-monthlyAnchor-error" class="notice error">monthlyAnchor is required when interval is monthly</p>',
    );
    expect(refused.text).toContain(
      '<p id="schedule-delayDays-error" class="notice error">delayDays must be an integer from 0 to 30</p>',
    );
    // What was typed is kept.
    expect(refused.text).toContain('<option value="monthly" selected="">Monthly</option>');
    expect(refused.text).toMatch(/<input id="schedule-delayDays"[^>]*value="45"/);
    expect(await scheduleOf(edited)).toEqual(before);
  });

  it('needs the CSRF token: without it 403 and the schedule unchanged', async () => {
    const browser = await signedIn(acme);
    const before = await scheduleOf(edited);
    const forged = await browser.post(`/console/merchants/${edited}/payout-schedule`, {
      interval: 'manual',
      delayDays: '0',
    });
    expect(forged.status).toBe(403);
    const wrong = await browser.post(`/console/merchants/${edited}/payout-schedule`, {
      _csrf: 'not-the-token',
      interval: 'manual',
    });
    expect(wrong.status).toBe(403);
    expect(await scheduleOf(edited)).toEqual(before);
  });
});

describe('payouts', () => {
  it('lists the account’s payouts newest first, filtered by status and merchant', async () => {
    const browser = await signedIn(acme);
    const list = await browser.get('/console/payouts');
    expect(list.status).toBe(200);
    expect(list.text).toContain('aria-current="page">Payouts</a>');
    const listed = (await api('/payouts?limit=50')).data as { id: string }[];
    const rows = tableRows(list.text, 'Payouts, newest first');
    expect(rows.map((row) => row[0])).toEqual(listed.map((payout) => payout.id));
    expect(new Set(rows.map((row) => row[0]))).toEqual(new Set([world.shopPayoutId, world.returnedPayoutId]));
    expect(list.text).toContain(`href="/console/merchants/${world.shopId}"`);

    const failed = await browser.get('/console/payouts?status=failed');
    expect(tableRows(failed.text, 'Payouts, newest first').map((row) => [row[0], row[3]])).toEqual([
      [world.returnedPayoutId, 'failed'],
    ]);
    const ofShop = await browser.get(`/console/payouts?merchant=${world.shopId}`);
    expect(tableRows(ofShop.text, 'Payouts, newest first').map((row) => row[0])).toEqual([world.shopPayoutId]);
    expect(ofShop.text).toContain(`value="${world.shopId}"`);
    const none = await browser.get(`/console/payouts?merchant=${world.shopId}&status=pending`);
    expect(none.text).toContain('No payout matches these filters.');
  });

  it('answers a merchant filter of another account’s merchant as one of no merchant at all', async () => {
    const browser = await signedIn(acme);
    const theirs = await browser.get(`/console/payouts?merchant=${foreign}`);
    const unknown = await browser.get('/console/payouts?merchant=mer_unknown');
    expect(theirs.text).toContain(`role="alert">No merchant ${foreign} of this account.</p>`);
    expect(unknown.text).toContain('role="alert">No merchant mer_unknown of this account.</p>');
    expect(theirs.text).not.toContain('another account');
  });

  it('shows a paid payout: amount, merchant, trace number, and its reconciliation with totals', async () => {
    const browser = await signedIn(acme);
    const page = await browser.get(`/console/payouts/${world.shopPayoutId}`);
    expect(page.status).toBe(200);
    const payout = (await api(`/payouts/${world.shopPayoutId}`)).data.attributes;
    expect(payout.traceNumber).toMatch(/^\d{15}$/);
    expect(page.text).toContain(`<h1>Payout ${world.shopPayoutId}</h1>`);
    expect(page.text).toContain(`<dt>Amount</dt><dd>${dollars(payout.amount)}</dd>`);
    expect(page.text).toContain('<dt>Status</dt><dd><span class="status paid">paid</span></dd>');
    expect(page.text).toContain(
      `<dt>Merchant</dt><dd><a href="/console/merchants/${world.shopId}">Shop ${ESCAPED}</a> (${world.shopId})</dd>`,
    );
    expect(page.text).toContain(`<dt>Trace number</dt><dd>${payout.traceNumber}</dd>`);
    expect(page.text).toContain('<dt>Bank account</dt><dd>ending 4321, routing number ending 0015</dd>');
    expect(page.text).not.toContain('<dt>Failure</dt>');

    const reconciliation = (await api(`/payouts/${world.shopPayoutId}/reconciliation`)).data.attributes;
    const rows = tableRows(page.text, `Reconciliation of ${world.shopPayoutId}, oldest first, then the totals`);
    expect(rows).toEqual([
      ...reconciliation.items.map(
        (item: Record<'balanceTransactionId' | 'type' | 'sourceId' | 'amount' | 'fee' | 'net', string>) => [
          item.balanceTransactionId,
          item.type,
          item.sourceId,
          dollars(item.amount),
          dollars(item.fee),
          dollars(item.net),
          expect.stringMatching(/ UTC$/),
          expect.stringMatching(/ UTC$/),
        ],
      ),
      [
        'Total of 2 items',
        '',
        '',
        dollars(reconciliation.totals.amount),
        dollars(reconciliation.totals.fee),
        dollars(payout.amount),
        '',
        '',
      ],
    ]);
    expect(reconciliation.items.map((item: { sourceId: string }) => item.sourceId).sort()).toEqual(
      world.paymentIds.slice(0, 2).sort(),
    );
  });

  it('downloads the reconciliation as the API writes it in CSV', async () => {
    const browser = await signedIn(acme);
    const csv = await browser.get(`/console/payouts/${world.shopPayoutId}/reconciliation.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(
      `attachment; filename="${world.shopPayoutId}-reconciliation.csv"`,
    );
    const fromApi = await stack.call('GET', `/payouts/${world.shopPayoutId}/reconciliation`, {
      as: acme,
      headers: { accept: 'text/csv' },
    });
    expect(csv.text).toBe(fromApi.body);
  });

  it('shows a payout the bank returned with its failure', async () => {
    const browser = await signedIn(acme);
    const page = await browser.get(`/console/payouts/${world.returnedPayoutId}`);
    const payout = (await api(`/payouts/${world.returnedPayoutId}`)).data.attributes;
    expect(payout.failureCode).toBe('R01');
    expect(page.text).toContain('<dt>Status</dt><dd><span class="status failed">failed</span></dd>');
    expect(page.text).toContain(`<dt>Failure</dt><dd>R01: ${payout.failureMessage}</dd>`);
  });
});

describe('another account', () => {
  it('gets the 404 page for acme’s merchant and payout, and cannot change the schedule', async () => {
    const browser = await signedIn(globex);
    for (const path of [
      `/console/merchants/${world.shopId}`,
      `/console/payouts/${world.shopPayoutId}`,
      `/console/payouts/${world.shopPayoutId}/reconciliation.csv`,
      '/console/merchants/mer_unknown',
      '/console/payouts/po_unknown',
    ]) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(404);
      expect(page.text, path).toContain('There is nothing here, or it is not yours to see.');
      expect(page.text, path).not.toContain('Shop');
    }
    const before = await scheduleOf(world.shopId);
    const own = await browser.get(`/console/merchants/${foreign}`);
    expect(own.status).toBe(200);
    const posted = await browser.post(`/console/merchants/${world.shopId}/payout-schedule`, {
      _csrf: browser.hidden(own.text, '_csrf'),
      interval: 'manual',
      delayDays: '0',
    });
    expect(posted.status).toBe(404);
    expect(await scheduleOf(world.shopId)).toEqual(before);

    const merchants = await browser.get('/console/merchants');
    expect(tableRows(merchants.text, 'Merchants, newest first').map((row) => row[1])).toEqual([foreign]);
    const payouts = await browser.get('/console/payouts');
    expect(payouts.text).toContain('No payout yet.');
  });
});
