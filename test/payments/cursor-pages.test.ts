import { newId } from '@pps/shared/ids';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { cardBody, cards, createCardToken, createPayment, splitBody, tokenv3Body } from '../fixtures/payments';
import { manualSchedule, settledPayments } from '../fixtures/payouts';
import { createWorld, type World } from '../fixtures/world';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * Cursor pagination (docs/api.md, Pagination): `startingAfter` / `endingBefore` on every list, `links.next` from the
 * page's last item, and the 400s of a cursor that is no item of the list. The payments list walked end to end, the
 * other lists one cursor page and one bad cursor each.
 */

let stack: TestStack;
let world: World<{ other: 'Other Cursor Platform'; partners: ['Split Partner'] }>;
/** The merchant's payments as the list shows them, newest first. */
let listed: string[];
let failedId: string;
let partnerPaymentId: string;
let otherAccountPaymentId: string;

beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
  world = await createWorld(stack, { other: 'Other Cursor Platform', partners: ['Split Partner'] });
  const { creds, merchantId, tokenId, partnerIds } = world;
  const [partnerId] = partnerIds;
  const declining = await createCardToken(stack, creds, cards.doNotHonor);
  const pay = async (body: unknown) => (await createPayment(stack, creds, body)).body.data.id as string;
  for (const amount of ['1000', '1100', '1200']) await pay(tokenv3Body({ merchantId, tokenId, amount }));
  // A decline answers 402 with the stored payment's id in the error document's meta.
  failedId = (await createPayment(stack, creds, cardBody({ merchantId, tokenId: declining }), 402)).body.meta.paymentId;
  // The merchant as split receiver: listed from the union's second branch.
  await pay(splitBody({ merchantId: partnerId, tokenId, splitMerchantId: merchantId, splitAmount: '200' }));
  for (const amount of ['1300', '1400']) await pay(tokenv3Body({ merchantId, tokenId, amount }));
  partnerPaymentId = await pay(tokenv3Body({ merchantId: partnerId, tokenId }));
  const otherMerchant = await createMerchant(stack, world.other);
  const otherToken = await createCardToken(stack, world.other);
  otherAccountPaymentId = (
    await createPayment(stack, world.other, tokenv3Body({ merchantId: otherMerchant, tokenId: otherToken }))
  ).body.data.id;
  listed = idsOf(await get(`/payments?id=${merchantId}&limit=100`));
}, 120_000);
afterAll(() => stack?.close());

const get = (path: string, as: Credentials = world.creds) => stack.call('GET', path, { as });
const idsOf = (res: ApiResponse): string[] => res.body.data.map((item: { id: string }) => item.id);
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

/** Asserts a 400 of the error envelope with this code, naming the query parameter. */
function expectParameterError(res: ApiResponse, code: string, parameter: string) {
  expect(res.status).toBe(400);
  expect(expectError(res, 400, code).source).toEqual({ parameter });
  expect(res.body.errors).toHaveLength(1);
}

describe('GET /payments by cursor', () => {
  const payments = (query: string) => get(`/payments?id=${world.merchantId}&${query}`);

  it('walks every page by links.next: each item once, in order, as the offset walk gives them', async () => {
    expect(listed).toHaveLength(7);
    expect(new Set(listed).size).toBe(7);
    const walked: string[] = [];
    let path: string | null = `/payments?id=${world.merchantId}&limit=2`;
    let pages = 0;
    while (path) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.body.meta.total).toBe(7);
      walked.push(...idsOf(res));
      pages++;
      const next: string | null = res.body.links.next;
      if (next) {
        const query = new URL(next).searchParams;
        expect(query.get('startingAfter')).toBe(walked[walked.length - 1]);
        expect(query.get('limit')).toBe('2');
        expect(query.get('id')).toBe(world.merchantId);
        expect(query.has('offset')).toBe(false);
      }
      path = next && pathOf(next);
    }
    expect(pages).toBe(4);
    const byOffset: string[] = [];
    for (let offset = 0; offset < 7; offset += 2) byOffset.push(...idsOf(await payments(`limit=2&offset=${offset}`)));
    expect(walked).toEqual(byOffset);
    expect(walked).toEqual(listed);
  });

  it('reads the page after a cursor, with hasMore for what lies beyond it, and offset counted from the cursor', async () => {
    const page = await payments(`limit=2&startingAfter=${listed[1]}`);
    expect(idsOf(page)).toEqual(listed.slice(2, 4));
    expect(page.body.meta).toEqual({ total: 7, limit: 2, offset: 0, hasMore: true });
    expect(page.body.links.self).toBe(
      `http://localhost:8080/payments?id=${world.merchantId}&limit=2&startingAfter=${listed[1]}`,
    );
    expect(page.body.links.next).toBe(
      `http://localhost:8080/payments?id=${world.merchantId}&limit=2&startingAfter=${listed[3]}`,
    );

    const skipped = await payments(`limit=2&startingAfter=${listed[0]}&offset=2`);
    expect(idsOf(skipped)).toEqual(listed.slice(3, 5));
    expect(skipped.body.meta).toEqual({ total: 7, limit: 2, offset: 2, hasMore: true });
    expect(skipped.body.links.next).toBe(
      `http://localhost:8080/payments?id=${world.merchantId}&limit=2&startingAfter=${listed[4]}`,
    );

    const last = await payments(`limit=2&startingAfter=${listed[4]}`);
    expect(idsOf(last)).toEqual(listed.slice(5));
    expect(last.body.meta.hasMore).toBe(false);
    expect(last.body.links.next).toBeNull();
    const beyond = await payments(`startingAfter=${listed[6]}`);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta).toEqual({ total: 7, limit: 25, offset: 0, hasMore: false });
    expect(beyond.body.links.next).toBeNull();
  });

  it('reads the page before a cursor with endingBefore, still newest first, and next goes on toward newer', async () => {
    const page = await payments(`limit=2&endingBefore=${listed[4]}`);
    expect(idsOf(page)).toEqual(listed.slice(2, 4));
    expect(page.body.meta).toEqual({ total: 7, limit: 2, offset: 0, hasMore: true });
    const next = page.body.links.next as string;
    expect(next).toBe(`http://localhost:8080/payments?id=${world.merchantId}&limit=2&endingBefore=${listed[2]}`);
    const newest = await get(pathOf(next));
    expect(idsOf(newest)).toEqual(listed.slice(0, 2));
    expect(newest.body.meta.hasMore).toBe(false);
    expect(newest.body.links.next).toBeNull();

    const skipped = await payments(`limit=2&endingBefore=${listed[5]}&offset=1`);
    expect(idsOf(skipped)).toEqual(listed.slice(2, 4));
    const none = await payments(`endingBefore=${listed[0]}`);
    expect(none.body.data).toEqual([]);
    expect(none.body.links.next).toBeNull();
  });

  it('filters by status from a cursor that need not match the filter', async () => {
    const failedAt = listed.indexOf(failedId);
    const failed = await payments(`status=failed&startingAfter=${listed[0]}`);
    expect(idsOf(failed)).toEqual([failedId]);
    expect(failed.body.meta).toEqual({ total: 1, limit: 25, offset: 0, hasMore: false });
    const pending = await payments(`status=pending&limit=1&startingAfter=${failedId}`);
    expect(idsOf(pending)).toEqual([listed[failedAt + 1]]);
    expect(pending.body.links.next).toBe(
      `http://localhost:8080/payments?id=${world.merchantId}&status=pending&limit=1&startingAfter=${listed[failedAt + 1]}`,
    );
    const newer = await payments(`status=failed&endingBefore=${listed[6]}`);
    expect(idsOf(newer)).toEqual([failedId]);
  });

  it('400s both cursors at once, naming endingBefore', async () => {
    expectParameterError(
      await payments(`startingAfter=${listed[0]}&endingBefore=${listed[3]}`),
      'invalid_field',
      'endingBefore',
    );
  });

  it('400s a cursor that is no payment of the merchant’s: unknown, malformed, another merchant’s, another account’s', async () => {
    const notOfTheList = [
      'pay_0000000000aaaaaaaaaaaaaaaa',
      'not-an-id',
      world.merchantId,
      partnerPaymentId,
      otherAccountPaymentId,
    ];
    for (const id of notOfTheList) {
      expectParameterError(await payments(`startingAfter=${id}`), 'invalid_cursor', 'startingAfter');
      expectParameterError(await payments(`endingBefore=${id}`), 'invalid_cursor', 'endingBefore');
    }
    // The other account asks about its own merchant from a cursor of ours: still no item of its list.
    const otherMerchant = (await get('/merchants', world.other)).body.data[0].id;
    expectParameterError(
      await get(`/payments?id=${otherMerchant}&startingAfter=${listed[0]}`, world.other),
      'invalid_cursor',
      'startingAfter',
    );
  });

  it('treats an empty cursor as none', async () => {
    const res = await payments('startingAfter=&limit=3');
    expect(idsOf(res)).toEqual(listed.slice(0, 3));
  });
});

/** A list other than payments: its path, and an id that is no item of it though it is an id of its kind. */
type OtherList = { name: string; path: () => string; as?: () => Record<string, string>; foreign: () => string };

describe('every other list by cursor', () => {
  const foreign: Record<string, string> = {};
  let endpointId: string;
  let payoutAccount: Credentials;

  beforeAll(async () => {
    const { creds, other, merchantId, partnerIds } = world;
    await createMerchant(stack, creds);
    await createCardToken(stack, creds);
    foreign.merchant = await createMerchant(stack, other);
    foreign.token = await createCardToken(stack, other);
    const customer = (as: Credentials, name: string) =>
      stack.call('POST', '/customers', { as, body: { data: { type: 'customers', attributes: { name } } } });
    for (const name of ['Ada', 'Grace', 'Barbara']) expect((await customer(creds, name)).status).toBe(201);
    foreign.customer = (await customer(other, 'Alan')).body.data.id;

    const webhook = (as: Credentials) =>
      stack.call('POST', '/webhooks', {
        as,
        body: { data: { type: 'webhooks', attributes: { url: 'https://receiver.example.com/hooks', events: ['*'] } } },
      });
    const endpoints = [];
    for (let i = 0; i < 3; i++) endpoints.push((await webhook(creds)).body.data.id as string);
    endpointId = endpoints[0]!;
    foreign.webhook = (await webhook(other)).body.data.id;
    for (let i = 0; i < 3; i++) await stack.call('POST', `/webhooks/${endpointId}/test`, { as: creds });
    // A delivery of the account's other endpoint: no item of the first one's deliveries.
    await stack.call('POST', `/webhooks/${endpoints[1]}/test`, { as: creds });
    foreign.delivery = (await get(`/webhooks/${endpoints[1]}/deliveries`)).body.data[0].id;
    foreign.event = (await get('/events', other)).body.data[0].id;
    // The balance transactions of another merchant of the same account.
    foreign.balanceTransaction = (await get(`/merchants/${partnerIds[0]}/balance-transactions`)).body.data[0].id;
    expect((await get(`/merchants/${merchantId}/balance-transactions`)).body.data.length).toBeGreaterThanOrEqual(3);

    // Payouts of an account of their own (its clock moves to settle the money).
    const payer = await createWorld(stack, { account: 'Payout Cursor Platform' });
    payoutAccount = payer.creds;
    await manualSchedule(stack, payer.creds, payer.merchantId);
    await settledPayments(stack, payer, ['10000']);
    for (const amount of ['1000', '2000', '3000']) {
      const made = await stack.call('POST', '/payouts', {
        as: payer.creds,
        body: { data: { type: 'payouts', attributes: { merchantId: payer.merchantId, amount } } },
      });
      expect(made.status).toBe(201);
    }
    foreign.payout = (await get('/payouts', payer.creds)).body.data[0].id;

    // NACHA files are written by settlement and payout runs; three are stored as those runs store them.
    for (let i = 0; i < 3; i++) {
      await stack.sql`
        insert into ach_files (id, batch_count, entry_count, entry_hash, total_debit, total_credit, payment_ids, content)
        values (${newId('achFile')}, 1, 1, '0000000000', 100, 0, '[]'::jsonb, 'x')`;
    }
    foreign.achFile = 'ach_0000000000aaaaaaaaaaaaaaaa';
  }, 120_000);

  const lists: OtherList[] = [
    { name: 'merchants', path: () => '/merchants', foreign: () => foreign.merchant! },
    {
      name: 'balance transactions',
      path: () => `/merchants/${world.merchantId}/balance-transactions`,
      foreign: () => foreign.balanceTransaction!,
    },
    {
      name: 'payouts',
      path: () => '/payouts',
      as: () => payoutAccount.headers,
      foreign: () => 'po_0000000000aaaaaaaaaaaaaaaa',
    },
    { name: 'events', path: () => '/events', foreign: () => foreign.event! },
    { name: 'webhooks', path: () => '/webhooks', foreign: () => foreign.webhook! },
    { name: 'deliveries', path: () => `/webhooks/${endpointId}/deliveries`, foreign: () => foreign.delivery! },
    { name: 'tokens', path: () => '/tokens', foreign: () => foreign.token! },
    { name: 'customers', path: () => '/customers', foreign: () => foreign.customer! },
    { name: 'ACH files', path: () => '/admin/ach-files', as: () => stack.admin, foreign: () => foreign.achFile! },
  ];

  it.each(lists.map((list) => [list.name, list] as const))(
    '%s: a page each way from a cursor, and a bad cursor',
    async (_, list) => {
      const call = (query: string) =>
        stack.call('GET', `${list.path()}?${query}`, { headers: (list.as ?? (() => world.creds.headers))() });
      const all = await call('limit=100');
      expect(all.status).toBe(200);
      const ids = idsOf(all);
      expect(ids.length).toBeGreaterThanOrEqual(3);

      const after = await call(`limit=1&startingAfter=${ids[0]}`);
      expect(after.status).toBe(200);
      expect(idsOf(after)).toEqual([ids[1]]);
      expect(after.body.meta.hasMore).toBe(true);
      expect(new URL(after.body.links.next).searchParams.get('startingAfter')).toBe(ids[1]);
      const before = await call(`limit=1&endingBefore=${ids[2]}`);
      expect(idsOf(before)).toEqual([ids[1]]);
      expect(new URL(before.body.links.next).searchParams.get('endingBefore')).toBe(ids[1]);

      expectParameterError(await call(`startingAfter=${list.foreign()}`), 'invalid_cursor', 'startingAfter');
      expectParameterError(await call('endingBefore=nope'), 'invalid_cursor', 'endingBefore');
      expectParameterError(
        await call(`startingAfter=${ids[0]}&endingBefore=${ids[2]}`),
        'invalid_field',
        'endingBefore',
      );
    },
  );

  it('400s another account’s payout, and another merchant’s, as a cursor', async () => {
    expectParameterError(await get(`/payouts?startingAfter=${foreign.payout}`), 'invalid_cursor', 'startingAfter');
    const payer = (await get('/merchants', payoutAccount)).body.data[0].id;
    const own = await get(`/payouts?merchantId=${payer}&startingAfter=${foreign.payout}`, payoutAccount);
    expect(idsOf(own)).toHaveLength(2);
    const another = await createMerchant(stack, payoutAccount);
    expectParameterError(
      await get(`/payouts?merchantId=${another}&startingAfter=${foreign.payout}`, payoutAccount),
      'invalid_cursor',
      'startingAfter',
    );
  });
});
