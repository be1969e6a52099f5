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

/** Calls a listing; the rows the statement that reads its page read from `table`, and the page it answered. */
async function listing(path: string, table: string) {
  sent.length = 0;
  listening = true;
  const response = await stack.call('GET', path, { as: creds });
  listening = false;
  expect(response.status).toBe(200);
  const pages = sent.filter(({ text }) => /^\s*\(?select/i.test(text) && text.includes(`from "${table}"`));
  const page = pages.filter(({ text }) => !/count\(/i.test(text));
  expect(page).toHaveLength(1);
  const { read } = await rowsRead(stack.sql, page[0]!, table);
  return { read, items: response.body.data.length as number };
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
