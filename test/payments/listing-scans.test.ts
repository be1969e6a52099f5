import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { cards, createCardToken, createPayment, tokenv3Body } from '../fixtures/payments';
import { copyRow, rowsRead } from '../fixtures/scans';
import { type Credentials, createTestStack, type TestStack } from '../harness';

/**
 * A listing reads its page, not every row of its merchant or account: each listing call runs beside thousands of
 * rows of the same merchant or account, the statement that reads its page is run again under EXPLAIN ANALYZE, and
 * the rows its plan read are counted (docs/decisions.md, "Performance: scans that grew with the tables"). The
 * total's count reads every row it counts by definition and is left out. A count in CI, never a time.
 */

const ROWS = 4000;
const PAGE = 25;

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let customerId: string;
const sent: { text: string; params: readonly unknown[] }[] = [];
let listening = false;

beforeAll(async () => {
  stack = await createTestStack({
    onQuery: (text, params) => {
      if (listening) sent.push({ text, params: [...params] });
    },
  });
  creds = await stack.createAccount('Listing scans');
  merchantId = await createMerchant(stack, creds);
  const customer = await stack.call('POST', '/customers', {
    as: creds,
    body: { data: { type: 'customers', attributes: { name: 'Ada Lovelace', merchantId } } },
  });
  customerId = customer.body.data.id;
  const tokenId = await createCardToken(stack, creds, cards.visa, { customerId });
  const payment = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data.id;
  const declined = await createCardToken(stack, creds, cards.doNotHonor);
  await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId: declined }), 402);

  // Copies of real rows, a second apart and older than the originals.
  const copies = (table: string, id: string, set: Record<string, unknown> = {}, perCopy: Record<string, string> = {}) =>
    copyRow(
      stack.sql,
      { table, id },
      {
        prefix: `${table}_copy`,
        count: ROWS,
        set,
        perCopy: { created_at: "now() - i * interval '1 second'", ...perCopy },
      },
    );
  await copies('payments', payment, { request_id: null });
  await copies('customers', customerId, {}, { external_id: "'copy' || i" });
  await copies('tokens', tokenId);
  const [event] = await stack.sql`select id from events where resource_id = ${payment} and type = 'payment.created'`;
  await copies('events', event!.id, {}, { resource_id: "'payments_copy' || i" });
  const [move] = await stack.sql`select id from balance_transactions where source_id = ${payment}`;
  await copies('balance_transactions', move!.id, {}, { source_id: "'payments_copy' || i" });
  for (const table of ['payments', 'customers', 'tokens', 'events', 'balance_transactions'])
    await stack.sql.unsafe(`analyze ${table}`);
});
afterAll(() => stack?.close());

/**
 * Calls a listing; the rows the statement that reads its page read from `table`, the rows its total's count read,
 * and the page it answered. A statement sent after a `set local` (the payments list by key) is explained under it.
 */
async function listing(path: string, table: string) {
  sent.length = 0;
  listening = true;
  const response = await stack.call('GET', path, { as: creds });
  listening = false;
  expect(response.status).toBe(200);
  const pages = sent.filter(({ text }) => /^\s*\(?select/i.test(text) && text.includes(`from "${table}"`));
  const page = pages.filter(({ text }) => !/count\(/i.test(text));
  const counts = pages.filter(({ text }) => /count\(/i.test(text));
  expect(page).toHaveLength(1);
  const settings = sent.filter(({ text }) => /^\s*set local /i.test(text));
  const explained = (statement: (typeof sent)[number]) =>
    stack.sql.begin(async (tx) => {
      for (const setting of settings) await tx.unsafe(setting.text);
      return rowsRead(tx, statement, table);
    });
  const { read } = await explained(page[0]!);
  const counted = counts.length === 1 ? (await explained(counts[0]!)).read : undefined;
  return { read, counted, items: response.body.data.length as number };
}

describe('what a listing reads', () => {
  it("a merchant's payments: one page of the merchant's records", async () => {
    const { read, items } = await listing(`/payments?id=${merchantId}&limit=${PAGE}`, 'payments');
    expect(items).toBe(PAGE);
    // The page from the merchant's own index; the split receiver's index holds none of its records.
    expect(read).toBeLessThanOrEqual(PAGE + 1);
  });

  it("a later page reads up to its end, not the merchant's every record", async () => {
    const { read, items } = await listing(`/payments?id=${merchantId}&limit=${PAGE}&offset=${4 * PAGE}`, 'payments');
    expect(items).toBe(PAGE);
    expect(read).toBeLessThanOrEqual(5 * PAGE + 1);
  });

  it("the account's customers", async () => {
    const { read, items } = await listing(`/customers?limit=${PAGE}`, 'customers');
    expect(items).toBe(PAGE);
    expect(read).toBeLessThanOrEqual(PAGE + 1);
  });

  it("the account's tokens, and one customer's", async () => {
    const all = await listing(`/tokens?limit=${PAGE}`, 'tokens');
    expect(all.items).toBe(PAGE);
    expect(all.read).toBeLessThanOrEqual(PAGE + 1);
    const customers = await listing(`/tokens?customerId=${customerId}&limit=${PAGE}`, 'tokens');
    expect(customers.items).toBe(PAGE);
    expect(customers.read).toBeLessThanOrEqual(PAGE + 1);
  });

  it("a merchant's balance transactions, a later page, and those of a type or a date range", async () => {
    const path = `/merchants/${merchantId}/balance-transactions?limit=${PAGE}`;
    const first = await listing(path, 'balance_transactions');
    expect(first.items).toBe(PAGE);
    expect(first.read).toBeLessThanOrEqual(PAGE + 1);
    const later = await listing(`${path}&offset=${4 * PAGE}`, 'balance_transactions');
    expect(later.items).toBe(PAGE);
    expect(later.read).toBeLessThanOrEqual(5 * PAGE + 1);
    const payments = await listing(`${path}&type=payment`, 'balance_transactions');
    expect(payments.items).toBe(PAGE);
    expect(payments.read).toBeLessThanOrEqual(PAGE + 1);
    // The dates bound the index range read: rows made before the copies' middle, never those after it.
    const middle = encodeURIComponent(new Date(Date.now() - (ROWS / 2) * 1000).toISOString());
    const older = await listing(`${path}&endDate=${middle}`, 'balance_transactions');
    expect(older.items).toBe(PAGE);
    expect(older.read).toBeLessThanOrEqual(PAGE + 1);
  });

  it("the account's events, and those of one rare type", async () => {
    const all = await listing(`/events?limit=${PAGE}`, 'events');
    expect(all.items).toBe(PAGE);
    expect(all.read).toBeLessThanOrEqual(PAGE + 1);
    // One payment.failed among thousands of payment.created: found without reading the others.
    const failed = await listing(`/events?type=payment.failed&limit=${PAGE}`, 'events');
    expect(failed.items).toBe(1);
    expect(failed.read).toBe(1);
  });
});

describe('what the payments list reads by each filter, at a merchant and across the account', () => {
  let merchant: string;
  const heavyEmail = 'Heavy.Buyer@example.com';

  beforeAll(async () => {
    merchant = await createMerchant(stack, creds);
    const customer = async (name: string, email: string) =>
      (
        await stack.call('POST', '/customers', {
          as: creds,
          body: { data: { type: 'customers', attributes: { name, email } } },
        })
      ).body.data.id as string;
    const [heavy, rare] = await Promise.all([
      customer('Heavy Buyer', heavyEmail),
      customer('Rare Buyer', 'rare@example.com'),
    ]);
    const heavyToken = await createCardToken(stack, creds, cards.mastercard, { customerId: heavy });
    const rareToken = await createCardToken(stack, creds, cards.visa2, { customerId: rare });
    const rarePayment = (await createPayment(stack, creds, tokenv3Body({ merchantId: merchant, tokenId: rareToken })))
      .body.data.id;
    const heavyPayment = (await createPayment(stack, creds, tokenv3Body({ merchantId: merchant, tokenId: heavyToken })))
      .body.data.id;
    // Behind every other record of the merchant: a walk along its created index would read them all first.
    await stack.sql`update payments set created_at = now() - interval '3 days' where id = ${rarePayment}`;
    // The heavy customer's records, and as many of one-off tokens with other cards: one in ten of each amount.
    const copies = (prefix: string, perCopy: Record<string, string>) =>
      copyRow(
        stack.sql,
        { table: 'payments', id: heavyPayment },
        {
          prefix,
          count: ROWS / 2,
          set: { request_id: null },
          perCopy: { created_at: "now() - i * interval '2 second'", amount: '1000 + (i % 10) * 100', ...perCopy },
        },
      );
    await copies('pay_heavy', {});
    await copies('pay_oneoff', {
      created_at: "now() - i * interval '2 second' - interval '1 second'",
      token_id: "'tok_oneoff' || i",
      card: `jsonb_build_object('brand', 'visa', 'last4', lpad((i % 5000)::text, 4, '0'), 'expiry', '1230', 'holder', 'J')`,
    });
    await stack.sql`analyze payments`;
  });

  const payments = (query: string) => listing(`/payments?${query}&limit=${PAGE}`, 'payments');

  it('a rare card: its records, not the merchant’s others', async () => {
    const atMerchant = await payments(`merchantId=${merchant}&last4=4242`);
    expect(atMerchant.items).toBe(1);
    expect(atMerchant.read).toBe(1);
    const account = await payments('last4=4242');
    expect(account.items).toBe(1);
    expect(account.read).toBe(1);
  });

  it("a customer's records, along their token, never the merchant's others", async () => {
    for (const scope of [`merchantId=${merchant}&`, '']) {
      const heavy = await payments(`${scope}customerEmail=${encodeURIComponent(heavyEmail.toUpperCase())}`);
      expect(heavy.items).toBe(PAGE);
      // A page and no more, though the token paid 2,000 times and the planner, from the average token's one or
      // two records, would gather them all to sort.
      expect(heavy.read).toBeLessThanOrEqual(PAGE + 1);
      const rare = await payments(`${scope}customerEmail=rare%40example.com`);
      expect(rare.items).toBe(1);
      expect(rare.read).toBe(1);
    }
  });

  it('a creation range bounds the index range read; an amount range reads about a page per its share', async () => {
    const from = encodeURIComponent(new Date(Date.now() - ROWS * 1000).toISOString());
    const to = encodeURIComponent(new Date(Date.now() - (ROWS / 2) * 1000).toISOString());
    const range = await payments(`merchantId=${merchant}&createdGte=${from}&createdLte=${to}`);
    expect(range.items).toBe(PAGE);
    expect(range.read).toBeLessThanOrEqual(PAGE + 1);
    // One record in ten has this amount: about ten records read for each listed, whatever the history.
    const amount = await payments(`merchantId=${merchant}&amountGte=1500&amountLte=1500`);
    expect(amount.items).toBe(PAGE);
    expect(amount.read).toBeLessThanOrEqual(10 * PAGE + 10);
  });

  it("the account's records, and a total counted no further than its bound", async () => {
    const account = await payments('status=pending');
    expect(account.items).toBe(PAGE);
    expect(account.read).toBeLessThanOrEqual(PAGE + 1);
    // Thousands of records, counted to 100 and the one past it.
    const all = await payments('offset=0');
    expect(all.counted).toBe(101);
    const card = await payments(`merchantId=${merchant}&last4=4444`);
    expect(card.items).toBe(PAGE);
    expect(card.read).toBe(PAGE);
    expect(card.counted).toBe(101);
    const customer = await payments(`customerEmail=${encodeURIComponent(heavyEmail)}`);
    expect(customer.counted).toBe(101);
  });
});
