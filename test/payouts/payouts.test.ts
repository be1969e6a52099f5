import { randomUUID } from 'node:crypto';
import { listPayouts } from '@pps/payments';
import { systemClock } from '@pps/shared/clock';
import { OPERATOR_ACCOUNT_ID } from '@pps/shared/http';
import { createLogger } from '@pps/shared/logger';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMerchantStatus } from '../fixtures/merchants';
import { createPayment, tokenv3Body } from '../fixtures/payments';
import { ledgerBalance, manualSchedule, settledPayments } from '../fixtures/payouts';
import { createWorld } from '../fixtures/world';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * Manual payouts through the API: POST /payouts, GET /payouts and /payouts/{id}, and the reconciliation of what a
 * payout carried. Money becomes available by settling card payments (the stack runs settlement; moving an account's
 * clock enqueues a pass). Every merchant is put on the `manual` schedule first, so an automatic payout run never
 * takes the money these tests pay out by hand.
 */

let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
});
afterAll(() => stack?.close());

type Funded = { creds: Credentials; other: Credentials; merchantId: string; tokenId: string; available: number };

/** An account (and a second one) whose merchant, on the manual schedule, has `amounts` settled and available. */
async function funded(amounts: string[] = ['10000', '5000']): Promise<Funded> {
  const world = await createWorld(stack, { other: 'Other Payouts' });
  await manualSchedule(stack, world.creds, world.merchantId);
  const { available } = await settledPayments(stack, world, amounts);
  return { ...world, available };
}

const postPayout = (as: Credentials, data: Record<string, unknown>, headers: Record<string, string> = {}) =>
  stack.call('POST', '/payouts', { as, headers, body: { data: { type: 'payouts', ...data } } });

const countPayouts = async (merchantId: string) =>
  (await stack.sql<{ n: number }[]>`select count(*)::int as n from payouts where merchant_id = ${merchantId}`)[0]!.n;
const countKeys = async (accountId: string) =>
  (
    await stack.sql<{ n: number }[]>`select count(*)::int as n from idempotency_keys where account_id = ${accountId}`
  )[0]!.n;
const carriedIds = async (payoutId: string) =>
  (
    await stack.sql<{ id: string }[]>`
      select id from balance_transactions where payout_id = ${payoutId} and type <> 'payout' order by created_at, id`
  ).map((row) => row.id);

type CsvRow = Record<string, string>;
const csvOf = (response: ApiResponse): CsvRow[] => parse(response.body as string, { columns: true });

describe('POST /payouts', () => {
  let world: Funded;
  beforeAll(async () => {
    world = await funded();
  });

  it('pays out the whole available balance: 201, carried rows, ledger in transit, payout.created', async () => {
    const { creds, merchantId, available } = world;
    // Fees 2.9 % + 30 ¢: 10000 → 9680, 5000 → 4825.
    expect(available).toBe(9680 + 4825);
    const res = await postPayout(creds, { attributes: { merchantId } });
    expect(res.status).toBe(201);
    const { id, attributes } = res.body.data;
    expect(id).toMatch(/^po_/);
    expect(res.body.links.self).toBe(`http://localhost:8080/payouts/${id}`);
    expect(attributes).toMatchObject({
      merchantId,
      amount: String(available),
      currency: 'USD',
      status: 'pending',
      method: 'manual',
      bank: { last4: '6789', routingLast4: '0021' },
      traceNumber: null,
      failureCode: null,
      paidAt: null,
      failedAt: null,
    });
    expect(attributes.arrivalDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    expect(await ledgerBalance(stack, `merchant:${merchantId}:available`)).toBe(0);
    expect(await ledgerBalance(stack, `merchant:${merchantId}:in_transit`)).toBe(available);
    const carried = await stack.sql<{ net: number }[]>`
      select net::int from balance_transactions where payout_id = ${id}`;
    expect(carried.reduce((sum, row) => sum + row.net, 0)).toBe(available);
    expect(
      await stack.sql`select payout_id from balance_transactions where merchant_id = ${merchantId} and payout_id is null`,
    ).toEqual([]);
    const [event] = await stack.sql<{ type: string; payload: { data: unknown } }[]>`
      select type, payload from events where resource_id = ${id}`;
    expect(event!.type).toBe('payout.created');
    expect(event!.payload.data).toMatchObject(res.body.data);

    // GET says the same.
    const got = await stack.call('GET', `/payouts/${id}`, { as: creds });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);

    // Nothing is left to pay out: 422, nothing stored.
    const again = await postPayout(creds, { attributes: { merchantId } });
    const error = expectError(again, 422, 'insufficient_available_balance', '/data/attributes/amount');
    expect(error.detail).toContain('0 cents');
    const tooMuch = await postPayout(creds, { attributes: { merchantId, amount: '1' } });
    expectError(tooMuch, 422, 'insufficient_available_balance', '/data/attributes/amount');
    expect(await countPayouts(merchantId)).toBe(1);
  });
});

describe('a partial payout, then the rest', () => {
  it('carries the remainder forward; each reconciliation adds up to its payout, in JSON and CSV', async () => {
    const world = await funded(['10000']);
    const { creds, merchantId, available } = world;
    expect(available).toBe(9680);

    // More than available: 422 naming the available amount, nothing stored.
    const over = await postPayout(creds, { attributes: { merchantId, amount: String(available + 1) } });
    expect(expectError(over, 422, 'insufficient_available_balance', '/data/attributes/amount').detail).toContain(
      `${available} cents`,
    );
    expect(await countPayouts(merchantId)).toBe(0);

    const first = await postPayout(creds, { attributes: { merchantId, amount: '3000' } });
    expect(first.status).toBe(201);
    expect(first.body.data.attributes.amount).toBe('3000');
    expect(await ledgerBalance(stack, `merchant:${merchantId}:available`)).toBe(available - 3000);

    const firstId = first.body.data.id;
    const reconciliation = await stack.call('GET', `/payouts/${firstId}/reconciliation`, { as: creds });
    expect(reconciliation.status).toBe(200);
    expect(reconciliation.headers.get('content-type')).toMatch(/^application\/json/);
    const [carriedId] = await carriedIds(firstId);
    const [payment] = await stack.sql<{ source_id: string; created_at: string; available_on: string }[]>`
      select source_id, created_at, available_on from balance_transactions where id = ${carriedId!}`;
    expect(reconciliation.body).toEqual({
      links: { self: `http://localhost:8080/payouts/${firstId}/reconciliation` },
      data: {
        type: 'payoutReconciliations',
        id: firstId,
        attributes: {
          payoutId: firstId,
          merchantId,
          amount: '3000',
          currency: 'USD',
          status: 'pending',
          items: [
            {
              balanceTransactionId: carriedId,
              type: 'payment',
              sourceId: payment!.source_id,
              amount: '10000',
              fee: '320',
              net: '9680',
              availableOn: new Date(payment!.available_on).toISOString(),
              createdAt: new Date(payment!.created_at).toISOString(),
            },
            {
              balanceTransactionId: null,
              type: 'carried_forward',
              sourceId: null,
              amount: '-6680',
              fee: '0',
              net: '-6680',
              availableOn: null,
              createdAt: null,
            },
          ],
          totals: { count: 2, amount: '3320', fee: '320', net: '3000' },
        },
      },
    });

    // More money settles; the next payout takes all that is available: what was left, and the new payment.
    const more = await settledPayments(stack, world, ['5000']);
    expect(more.available).toBe(6680 + 4825);
    const second = await postPayout(creds, { attributes: { merchantId } });
    expect(second.status).toBe(201);
    expect(second.body.data.attributes.amount).toBe(String(6680 + 4825));
    const secondId = second.body.data.id;
    const secondReconciliation = await stack.call('GET', `/payouts/${secondId}/reconciliation`, { as: creds });
    const { items, totals } = secondReconciliation.body.data.attributes;
    expect(items.map((item: { type: string }) => item.type)).toEqual(['brought_forward', 'payment']);
    expect(items[0]).toMatchObject({ balanceTransactionId: null, amount: '6680', fee: '0', net: '6680' });
    expect(items[1]).toMatchObject({ balanceTransactionId: (await carriedIds(secondId))[0], net: '4825' });
    expect(totals).toEqual({ count: 2, amount: String(6680 + 5000), fee: '175', net: String(6680 + 4825) });

    // CSV: a header row, one row per item, a total row whose net is the payout amount.
    const csv = await stack.call('GET', `/payouts/${secondId}/reconciliation`, {
      as: creds,
      headers: { accept: 'text/csv' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="${secondId}-reconciliation.csv"`);
    expect((csv.body as string).split('\r\n')[0]).toBe(
      'balanceTransactionId,type,sourceId,amount,fee,net,availableOn,createdAt',
    );
    const rows = csvOf(csv);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({
      balanceTransactionId: '',
      type: 'brought_forward',
      sourceId: '',
      amount: '6680',
      fee: '0',
      net: '6680',
      availableOn: '',
      createdAt: '',
    });
    expect(rows[1]).toEqual({ ...items[1], balanceTransactionId: items[1].balanceTransactionId });
    expect(rows[2]).toEqual({
      balanceTransactionId: '',
      type: 'total',
      sourceId: '',
      amount: totals.amount,
      fee: '175',
      net: second.body.data.attributes.amount,
      availableOn: '',
      createdAt: '',
    });
    // The first payout's CSV ends with its carried-forward row and a total equal to its 3000.
    const firstRows = csvOf(
      await stack.call('GET', `/payouts/${firstId}/reconciliation`, { as: creds, headers: { accept: 'text/csv' } }),
    );
    expect(firstRows.map((row) => row.type)).toEqual(['payment', 'carried_forward', 'total']);
    expect(firstRows[2]!.net).toBe('3000');
  });

  it('serves JSON to */*, to an Accept it does not know and to one preferring JSON; CSV to text/*', async () => {
    const world = await funded(['2000']);
    const payout = await postPayout(world.creds, { attributes: { merchantId: world.merchantId } });
    const path = `/payouts/${payout.body.data.id}/reconciliation`;
    for (const accept of ['*/*', 'application/xml', 'application/json, text/csv;q=0.5']) {
      const res = await stack.call('GET', path, { as: world.creds, headers: { accept } });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('content-type'), accept).toMatch(/^application\/json/);
    }
    const text = await stack.call('GET', path, { as: world.creds, headers: { accept: 'text/*' } });
    expect(text.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  });
});

describe('idempotency', () => {
  let world: Funded;
  beforeAll(async () => {
    world = await funded(['10000']);
  });

  it('replays the first 201 for the same requestId, body or header, and stores one payout', async () => {
    const { creds, merchantId } = world;
    const requestId = randomUUID();
    const first = await postPayout(creds, { requestId, attributes: { merchantId, amount: '1000' } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await postPayout(creds, { requestId, attributes: { merchantId, amount: '1000' } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    // The same key as the header, in any case: the same request.
    const byHeader = await postPayout(
      creds,
      { attributes: { merchantId, amount: '1000' } },
      { 'idempotency-key': requestId.toUpperCase() },
    );
    expect(byHeader.status).toBe(201);
    expect(byHeader.body).toEqual(first.body);
    expect(await countPayouts(merchantId)).toBe(1);
    expect(await ledgerBalance(stack, `merchant:${merchantId}:in_transit`)).toBe(1000);
  });

  it('409s the same key with another body, and 400s two different keys; nothing stored', async () => {
    const { creds, merchantId } = world;
    const requestId = randomUUID();
    await postPayout(creds, { requestId, attributes: { merchantId, amount: '500' } });
    const before = await countPayouts(merchantId);
    expectError(
      await postPayout(creds, { requestId, attributes: { merchantId, amount: '501' } }),
      409,
      'idempotency_key_reused',
      '/data/requestId',
    );
    const header = await postPayout(
      creds,
      { attributes: { merchantId, amount: '502' } },
      { 'idempotency-key': requestId },
    );
    expect(expectError(header, 409, 'idempotency_key_reused').source).toEqual({ parameter: 'idempotency-key' });
    expectError(
      await postPayout(
        creds,
        { requestId, attributes: { merchantId, amount: '500' } },
        { 'idempotency-key': randomUUID() },
      ),
      400,
      'idempotency_key_mismatch',
      '/data/requestId',
    );
    // Payments and payouts share the account's keys: a payment's key on a payout is another body, a 409.
    const paymentKey = randomUUID();
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId: world.tokenId, requestId: paymentKey }));
    expectError(
      await postPayout(creds, { requestId: paymentKey, attributes: { merchantId, amount: '500' } }),
      409,
      'idempotency_key_reused',
      '/data/requestId',
    );
    expect(await countPayouts(merchantId)).toBe(before);
  });

  it('does not remember a refusal: the same key goes through once the request is fixed', async () => {
    const { creds, merchantId } = world;
    const requestId = randomUUID();
    const keys = await countKeys(creds.accountId);
    const available = await ledgerBalance(stack, `merchant:${merchantId}:available`);
    const refused = await postPayout(creds, { requestId, attributes: { merchantId, amount: String(available + 1) } });
    expectError(refused, 422, 'insufficient_available_balance', '/data/attributes/amount');
    expect(await countKeys(creds.accountId)).toBe(keys);
    const fixed = await postPayout(creds, { requestId, attributes: { merchantId, amount: '100' } });
    expect(fixed.status).toBe(201);
    expect(await countKeys(creds.accountId)).toBe(keys + 1);
  });
});

describe('refusals', () => {
  let world: Funded;
  beforeAll(async () => {
    world = await funded(['3000']);
  });

  const A = '/data/attributes';
  /** The request's data for the merchant (`merchantId` absent where a case leaves it out). */
  type Case = [string, (merchantId: string) => Record<string, unknown>, string, string];
  it.each<Case>([
    ['no merchantId', () => ({ attributes: {} }), 'missing_field', `${A}/merchantId`],
    ['an empty merchantId', () => ({ attributes: { merchantId: '' } }), 'invalid_field', `${A}/merchantId`],
    [
      'a decimal amount',
      (merchantId) => ({ attributes: { merchantId, amount: '10.50' } }),
      'invalid_field',
      `${A}/amount`,
    ],
    [
      'a negative amount',
      (merchantId) => ({ attributes: { merchantId, amount: '-100' } }),
      'invalid_field',
      `${A}/amount`,
    ],
    ['a zero amount', (merchantId) => ({ attributes: { merchantId, amount: '0' } }), 'invalid_field', `${A}/amount`],
    [
      'an amount as a number',
      (merchantId) => ({ attributes: { merchantId, amount: 1000 } }),
      'invalid_field',
      `${A}/amount`,
    ],
    [
      'an amount over the maximum',
      (merchantId) => ({ attributes: { merchantId, amount: '100000001' } }),
      'invalid_field',
      `${A}/amount`,
    ],
    [
      'a requestId that is no UUID',
      (merchantId) => ({ requestId: 'abc', attributes: { merchantId } }),
      'invalid_field',
      '/data/requestId',
    ],
  ])('400s %s, with its pointer, and stores nothing', async (_, data, code, pointer) => {
    const { creds, merchantId } = world;
    const keys = await countKeys(creds.accountId);
    const res = await postPayout(creds, data(merchantId));
    expectError(res, 400, code, pointer);
    expect(await countPayouts(merchantId)).toBe(0);
    expect(await countKeys(creds.accountId)).toBe(keys);
  });

  it('400s a body of another type on /data/type', async () => {
    const res = await stack.call('POST', '/payouts', {
      as: world.creds,
      body: { data: { type: 'payments', attributes: { merchantId: world.merchantId } } },
    });
    expectError(res, 400, 'invalid_field', '/data/type');
  });

  it('404s an unknown or malformed merchant and 403s another account’s, on merchantId; stores nothing', async () => {
    const { creds, other, merchantId } = world;
    const pointer = `${A}/merchantId`;
    expectError(
      await postPayout(creds, { attributes: { merchantId: 'mer_00000000000000000000000000' } }),
      404,
      'merchant_not_found',
      pointer,
    );
    expectError(await postPayout(creds, { attributes: { merchantId: 'nope' } }), 404, 'merchant_not_found', pointer);
    expectError(await postPayout(other, { attributes: { merchantId } }), 403, 'merchant_forbidden', pointer);
    expect(await countPayouts(merchantId)).toBe(0);
  });

  it('422s a merchant that is not active (merchant_not_active) and stores nothing', async () => {
    const { creds, merchantId } = await createWorld(stack, { token: false });
    await setMerchantStatus(stack, merchantId, 'suspended');
    const res = await postPayout(creds, { attributes: { merchantId } });
    expectError(res, 422, 'merchant_not_active', `${A}/merchantId`);
    expect(await countPayouts(merchantId)).toBe(0);
  });

  it('422s a merchant with nothing available (insufficient_available_balance)', async () => {
    const { creds, merchantId } = await createWorld(stack, { token: false });
    const res = await postPayout(creds, { attributes: { merchantId, amount: '100' } });
    const error = expectError(res, 422, 'insufficient_available_balance', `${A}/amount`);
    expect(error.detail).toBe('amount 100 is more than the available balance of 0 cents');
    expect(await countPayouts(merchantId)).toBe(0);
  });
});

describe('GET /payouts and /payouts/{id}', () => {
  let world: Funded;
  let ids: string[];
  beforeAll(async () => {
    world = await funded(['10000']);
    ids = [];
    for (const amount of ['1000', '2000', '3000']) {
      ids.push((await postPayout(world.creds, { attributes: { merchantId: world.merchantId, amount } })).body.data.id);
    }
  });

  const list = (query: string, as = world.creds) => stack.call('GET', `/payouts${query}`, { as });

  it('lists the account’s payouts newest first, paginated, and by merchant and status', async () => {
    const all = await list('');
    expect(all.status).toBe(200);
    expect(all.body.data.map((payout: { id: string }) => payout.id)).toEqual([...ids].reverse());
    expect(all.body.meta).toEqual({ total: 3, limit: 25, offset: 0, hasMore: false });
    expect(all.body.data[0]).toEqual((await stack.call('GET', `/payouts/${ids[2]}`, { as: world.creds })).body.data);

    const page = await list('?limit=2&offset=1');
    expect(page.body.data.map((payout: { id: string }) => payout.id)).toEqual([ids[1], ids[0]]);
    expect(page.body.meta).toEqual({ total: 3, limit: 2, offset: 1, hasMore: false });
    const firstPage = await list('?limit=2');
    expect(firstPage.body.links.next).toBe(`http://localhost:8080/payouts?limit=2&startingAfter=${ids[1]}`);

    expect((await list(`?merchantId=${world.merchantId}`)).body.meta.total).toBe(3);
    expect((await list('?status=pending')).body.meta.total).toBe(3);
    expect((await list('?status=paid')).body.data).toEqual([]);
  });

  it('filters by creation time: startDate inclusive, endDate exclusive', async () => {
    const [oldest] = await stack.sql<{ created_at: string }[]>`select created_at from payouts where id = ${ids[0]!}`;
    const at = new Date(oldest!.created_at).toISOString();
    expect((await list(`?startDate=${encodeURIComponent(at)}`)).body.meta.total).toBe(3);
    expect((await list(`?endDate=${encodeURIComponent(at)}`)).body.meta.total).toBe(0);
    const later = new Date(new Date(at).getTime() + 86_400_000).toISOString();
    expect((await list(`?startDate=${encodeURIComponent(later)}`)).body.meta.total).toBe(0);
  });

  it('400s bad filters with source.parameter, 403s another account’s merchant', async () => {
    const parameter = (res: ApiResponse, code: string, name: string) =>
      expect(expectError(res, 400, code).source).toEqual({ parameter: name });
    parameter(await list('?merchantId=mer_00000000000000000000000000'), 'invalid_merchant_id', 'merchantId');
    parameter(await list('?merchantId=nope'), 'invalid_merchant_id', 'merchantId');
    parameter(await list('?status=sent'), 'invalid_field', 'status');
    parameter(await list('?limit=0'), 'invalid_field', 'limit');
    parameter(await list('?limit=101'), 'invalid_field', 'limit');
    parameter(await list('?offset=-1'), 'invalid_field', 'offset');
    parameter(await list('?startDate=yesterday'), 'invalid_field', 'startDate');
    parameter(await list('?startDate=0000-01-01'), 'invalid_field', 'startDate');
    parameter(await list('?startDate=2026-02-01&endDate=2026-01-01'), 'invalid_date_range', 'startDate');
    const forbidden = await list(`?merchantId=${world.merchantId}`, world.other);
    expect(expectError(forbidden, 403, 'merchant_forbidden').source).toEqual({ parameter: 'merchantId' });
    // Another account sees none of these.
    expect((await list('', world.other)).body.meta.total).toBe(0);
  });

  it('404s an unknown or malformed payout, 403s another account’s, on GET and on its reconciliation', async () => {
    for (const suffix of ['', '/reconciliation']) {
      expectError(
        await stack.call('GET', `/payouts/po_00000000000000000000000000${suffix}`, { as: world.creds }),
        404,
        'payout_not_found',
      );
      expectError(await stack.call('GET', `/payouts/nope${suffix}`, { as: world.creds }), 404, 'payout_not_found');
      expectError(await stack.call('GET', `/payouts/${ids[0]}${suffix}`, { as: world.other }), 403, 'payout_forbidden');
    }
  });

  it('lists any merchant’s payouts for the operator (the CLI’s use case)', async () => {
    const ctx = {
      accountId: OPERATOR_ACCOUNT_ID,
      appId: 'cli',
      clockOffsetSeconds: 0,
      requestId: 'req_cli',
      config: stack.config,
      db: stack.db,
      clock: systemClock,
      log: createLogger({ level: 'silent' }),
    };
    const { rows, page } = await listPayouts({ ctx, input: { merchantId: world.merchantId, limit: 10, offset: 0 } });
    expect(rows.map((row) => row.id)).toEqual([...ids].reverse());
    expect(page.total).toBe(3);
  });
});
