import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMerchantFeatures } from '../fixtures/merchants';
import {
  achBody,
  createPayment,
  refundBody,
  refundSplitBody,
  secondSplitBody,
  setClock,
  splitBody,
  tokenv3Body,
} from '../fixtures/payments';
import { manualSchedule } from '../fixtures/payouts';
import { createWorld } from '../fixtures/world';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * A merchant's balances and balance transactions through the API, over a real history: card payments (one with a
 * split), a refund and a split refund before settlement, a void, a second split, an ACH debit that settles and one
 * the bank returns, then settlement by the account's sandbox clock. Every balance transaction is checked by type,
 * amount, fee, net, status and source, and Σ net of a merchant's rows is its pending + available + in transit.
 */

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
let splitPartner: string;
let third: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
  const world = await createWorld(stack, { account: 'Balances', other: 'Globex', partners: ['Partner', 'Third'] });
  ({ creds, other, merchantId, tokenId } = world);
  [splitPartner, third] = world.partnerIds;
  await setMerchantFeatures(stack, merchantId, { secondSplit: true });
  // A moved clock also runs the account's payouts: manual schedules keep the balances this file reads in place.
  await Promise.all([merchantId, splitPartner, third].map((id) => manualSchedule(stack, creds, id)));
});
afterAll(() => stack?.close());

/** 2.9% rounded half up, plus 30 cents: the platform's default pricing. */
const feesOf = (amount: number) => Math.floor((amount * 290 + 5_000) / 10_000) + 30;

const get = (path: string, as: Credentials = creds) => stack.call('GET', path, { as });
const balanceOf = async (id: string) => {
  const response = await get(`/merchants/${id}/balance`);
  expect(response.status).toBe(200);
  return response.body.data.attributes as { pending: string; available: string; inTransit: string };
};

type Item = {
  type: 'balanceTransactions';
  id: string;
  attributes: {
    type: string;
    amount: string;
    fee: string;
    net: string;
    currency: string;
    sourceId: string;
    status: string;
    availableOn: string;
    payoutId: string | null;
    createdAt: string;
  };
};
const transactionsOf = async (id: string, query = ''): Promise<Item[]> => {
  const response = await get(`/merchants/${id}/balance-transactions?limit=100${query}`);
  expect(response.status).toBe(200);
  return response.body.data;
};

/** The rows as `[type, amount, fee, net, status, sourceId]`, in the listing's order reversed (oldest first). */
const summary = (items: Item[]) =>
  [...items]
    .reverse()
    .map(({ attributes: a }) => [a.type, Number(a.amount), Number(a.fee), Number(a.net), a.status, a.sourceId]);

/** Σ net of the merchant's rows is its pending + available + in transit, as the ledger holds them. */
async function expectIdentity(id: string) {
  const [items, balance] = await Promise.all([transactionsOf(id), balanceOf(id)]);
  const net = items.reduce((sum, item) => sum + Number(item.attributes.net), 0);
  expect(net).toBe(Number(balance.pending) + Number(balance.available) + Number(balance.inTransit));
  const available = items
    .filter((item) => item.attributes.status === 'available')
    .reduce((sum, item) => sum + Number(item.attributes.net), 0);
  expect(available).toBe(Number(balance.available));
  const [ledger] = await stack.sql`
    select coalesce(sum(amount) filter (where ledger_account = ${`merchant:${id}:pending`}), 0)::int as pending,
      coalesce(sum(amount) filter (where ledger_account = ${`merchant:${id}:available`}), 0)::int as available,
      coalesce(sum(amount) filter (where ledger_account = ${`merchant:${id}:in_transit`}), 0)::int as in_transit
    from ledger_entries`;
  expect(balance).toEqual({
    currency: 'USD',
    pending: String(ledger!.pending),
    available: String(ledger!.available),
    inTransit: String(ledger!.in_transit),
  });
}

const statusOf = async (id: string) => (await get(`/payments/${id}`)).body.data.attributes;

describe('balances and balance transactions over a real history', () => {
  const ids: Record<string, string> = {};
  const attributes: Record<string, { settleAt: string | null }> = {};
  const made = async (name: string, body: unknown) => {
    const { data } = (await createPayment(stack, creds, body)).body;
    ids[name] = data.id;
    attributes[name] = data.attributes;
  };
  // The figures of the history (default pricing).
  const card = { amount: 1000, fees: feesOf(1000) };
  const split = { amount: 2000, share: 500, fees: feesOf(2000) };
  const voided = { amount: 1500, fees: feesOf(1500) };
  const ach = { amount: 2000, fees: feesOf(2000) };
  const returned = { amount: 5501, fees: feesOf(5501) };
  const refund = 300;
  const splitRefund = 100;
  const second = 200;

  it('starts at zero with no balance transaction', async () => {
    const response = await get(`/merchants/${merchantId}/balance`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      links: { self: `${stack.config.PUBLIC_BASE_URL}/merchants/${merchantId}/balance` },
      data: {
        type: 'balances',
        id: merchantId,
        attributes: { currency: 'USD', pending: '0', available: '0', inTransit: '0' },
      },
    });
    const list = await get(`/merchants/${merchantId}/balance-transactions`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    expect(list.body.meta).toEqual({ total: 0, limit: 25, offset: 0, hasMore: false });
  });

  it('books each operation before settlement: captures and splits pending, a void and its capture available', async () => {
    await made('card', tokenv3Body({ merchantId, tokenId, amount: String(card.amount) }));
    await made(
      'split',
      splitBody({
        merchantId,
        tokenId,
        amount: String(split.amount),
        splitMerchantId: splitPartner,
        splitAmount: String(split.share),
      }),
    );
    await made('refund', refundBody(ids.card!, String(refund)));
    await made('voided', tokenv3Body({ merchantId, tokenId, amount: String(voided.amount) }));
    await made('void', refundBody(ids.voided!, String(voided.amount)));
    await made('second', secondSplitBody(ids.split!, third, String(second)));
    await made('splitRefund', refundSplitBody(ids.split!, String(splitRefund)));
    await made('ach', achBody({ merchantId, amount: String(ach.amount) }));
    await made('returned', achBody({ merchantId, amount: String(returned.amount) }));
    expect((await statusOf(ids.voided!)).status).toBe('voided');

    const cardNet = card.amount - card.fees;
    const splitNet = split.amount - split.fees - split.share;
    const voidedNet = voided.amount - voided.fees;
    const achNet = ach.amount - ach.fees;
    const returnedNet = returned.amount - returned.fees;
    const primary = await transactionsOf(merchantId);
    expect(summary(primary)).toEqual([
      ['payment', card.amount, card.fees, cardNet, 'pending', ids.card],
      ['payment', split.amount - split.share, split.fees, splitNet, 'pending', ids.split],
      ['refund', -refund, 0, -refund, 'pending', ids.refund],
      ['payment', voided.amount, voided.fees, voidedNet, 'available', ids.voided],
      ['void', -voided.amount, -voided.fees, -voidedNet, 'available', ids.void],
      ['second_split', -second, 0, -second, 'pending', ids.second],
      ['payment', ach.amount, ach.fees, achNet, 'pending', ids.ach],
      ['payment', returned.amount, returned.fees, returnedNet, 'pending', ids.returned],
    ]);
    expect(summary(await transactionsOf(splitPartner))).toEqual([
      ['split', split.share, 0, split.share, 'pending', ids.split],
      ['split_refund', -splitRefund, 0, -splitRefund, 'pending', ids.splitRefund],
    ]);
    expect(summary(await transactionsOf(third))).toEqual([['second_split', second, 0, second, 'pending', ids.second]]);

    // Pending money is due when its record settles: the refund's own day, the second split its parent's.
    const byId = new Map(primary.map((item) => [item.attributes.sourceId, item.attributes]));
    expect(byId.get(ids.card!)!.availableOn).toBe(attributes.card!.settleAt);
    expect(byId.get(ids.refund!)!.availableOn).toBe(attributes.refund!.settleAt);
    expect(byId.get(ids.second!)!.availableOn).toBe(attributes.split!.settleAt);
    expect(byId.get(ids.ach!)!.availableOn).toBe(attributes.ach!.settleAt);
    for (const item of primary) {
      expect(item.attributes).toMatchObject({ currency: 'USD', payoutId: null });
      expect(item.id).toMatch(/^txn_/);
      expect(item.type).toBe('balanceTransactions');
    }

    expect(await balanceOf(merchantId)).toEqual({
      currency: 'USD',
      pending: String(cardNet + splitNet - refund - second + achNet + returnedNet),
      available: '0',
      inTransit: '0',
    });
    for (const id of [merchantId, splitPartner, third]) await expectIdentity(id);
  });

  it('after settlement every row is available; the returned debit and its return net zero', async () => {
    const settleAt = Math.max(
      ...Object.values(attributes).map((a) => (a.settleAt ? new Date(a.settleAt).getTime() : 0)),
    );
    await setClock(stack, creds, new Date(settleAt + 1000));
    await waitFor(() => statusOf(ids.returned!), {
      until: (a) => a.status === 'failed',
      what: 'the ACH debit returned',
    });
    for (const name of ['card', 'split', 'refund', 'splitRefund', 'ach']) {
      await waitFor(() => statusOf(ids[name]!), { until: (a) => a.settledAt !== null, what: `${name} settled` });
    }

    const cardNet = card.amount - card.fees;
    const splitNet = split.amount - split.fees - split.share;
    const achNet = ach.amount - ach.fees;
    const returnedNet = returned.amount - returned.fees;
    const primary = await transactionsOf(merchantId);
    expect(primary.every((item) => item.attributes.status === 'available')).toBe(true);
    const newest = primary[0]!.attributes;
    expect([newest.type, Number(newest.amount), Number(newest.fee), Number(newest.net), newest.sourceId]).toEqual([
      'ach_return',
      -returned.amount,
      -returned.fees,
      -returnedNet,
      ids.returned,
    ]);
    expect(await balanceOf(merchantId)).toEqual({
      currency: 'USD',
      pending: '0',
      available: String(cardNet + splitNet - refund - second + achNet),
      inTransit: '0',
    });
    expect(await balanceOf(splitPartner)).toMatchObject({ pending: '0', available: String(split.share - splitRefund) });
    expect(await balanceOf(third)).toMatchObject({ pending: '0', available: String(second) });
    for (const id of [merchantId, splitPartner, third]) await expectIdentity(id);
  });

  it('lists newest first, pages with meta and links, and filters by type, payout and dates', async () => {
    const all = await transactionsOf(merchantId);
    const order = [...all].sort(
      (a, b) =>
        b.attributes.createdAt.localeCompare(a.attributes.createdAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
    );
    expect(all.map((item) => item.id)).toEqual(order.map((item) => item.id));

    const page = await get(`/merchants/${merchantId}/balance-transactions?limit=2&offset=1`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((item: Item) => item.id)).toEqual(all.slice(1, 3).map((item) => item.id));
    expect(page.body.meta).toEqual({ total: all.length, limit: 2, offset: 1, hasMore: true });
    expect(page.body.links.next).toBe(
      `${stack.config.PUBLIC_BASE_URL}/merchants/${merchantId}/balance-transactions?limit=2&startingAfter=${all[2]!.id}`,
    );

    const refunds = await transactionsOf(merchantId, '&type=refund');
    expect(refunds.map((item) => item.attributes.sourceId)).toEqual([ids.refund]);
    expect(await transactionsOf(merchantId, '&payoutId=po_0000000000aaaaaaaaaaaaaaaa')).toEqual([]);

    // startDate inclusive, endDate exclusive, as GET /payments; a date alone is UTC midnight.
    const returnedAt = all[0]!.attributes.createdAt;
    const since = await transactionsOf(merchantId, `&startDate=${encodeURIComponent(returnedAt)}`);
    expect(since.map((item) => item.id)).toEqual([all[0]!.id]);
    const before = await transactionsOf(merchantId, `&endDate=${encodeURIComponent(returnedAt)}`);
    expect(before.map((item) => item.id)).toEqual(all.slice(1).map((item) => item.id));
    expect(await transactionsOf(merchantId, '&startDate=2999-01-01')).toEqual([]);
    expect(await transactionsOf(merchantId, '&endDate=2000-01-01')).toEqual([]);
  });
});

describe('balance errors', () => {
  const paths = (id: string) => [`/merchants/${id}/balance`, `/merchants/${id}/balance-transactions`];
  const parameterOf = (response: ApiResponse, status: number, code: string, parameter: string) => {
    const error = expectError(response, status, code) as { source?: { parameter?: string } };
    expect(error.source).toEqual({ parameter });
  };

  it('404s an unknown or malformed merchant and 403s another account’s, as the other merchant routes', async () => {
    for (const id of ['mer_0000000000aaaaaaaaaaaaaaaa', 'nope']) {
      for (const path of paths(id)) {
        const error = expectError(await get(path), 404, 'merchant_not_found');
        expect(error.source).toBeUndefined();
      }
    }
    for (const path of paths(merchantId)) {
      const error = expectError(await get(path, other), 403, 'merchant_forbidden');
      expect(error.source).toBeUndefined();
    }
    // The same answers GET /merchants/{id} gives.
    expectError(await get(`/merchants/${merchantId}`, other), 403, 'merchant_forbidden');
  });

  it('400s a bad type, date, range, limit or offset with its parameter, and stores nothing', async () => {
    const [before] = await stack.sql`select count(*)::int as rows from balance_transactions`;
    const cases: [string, string, string][] = [
      ['type=fee', 'type', 'invalid_field'],
      ['type=PAYMENT', 'type', 'invalid_field'],
      ['payoutId=pay_0000000000aaaaaaaaaaaaaaaa', 'payoutId', 'invalid_field'],
      ['payoutId=%00', 'payoutId', 'invalid_field'],
      ['startDate=yesterday', 'startDate', 'invalid_field'],
      ['startDate=0000-01-01', 'startDate', 'invalid_field'],
      ['endDate=2026-13-01', 'endDate', 'invalid_field'],
      ['startDate=2026-02-01&endDate=2026-01-01', 'startDate', 'invalid_date_range'],
      ['limit=0', 'limit', 'invalid_field'],
      ['limit=101', 'limit', 'invalid_field'],
      ['limit=ten', 'limit', 'invalid_field'],
      ['offset=-1', 'offset', 'invalid_field'],
    ];
    for (const [query, parameter, code] of cases) {
      parameterOf(await get(`/merchants/${merchantId}/balance-transactions?${query}`), 400, code, parameter);
    }
    const [after] = await stack.sql`select count(*)::int as rows from balance_transactions`;
    expect(after!.rows).toBe(before!.rows);
  });
});
