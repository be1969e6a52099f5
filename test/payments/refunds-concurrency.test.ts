import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setMerchantFeatures } from '../fixtures/merchants';
import {
  createPayment,
  newRequestId,
  postPayment,
  refundBody,
  refundSplitBody,
  secondSplitBody,
  splitBody,
  tokenv3Body,
} from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * Concurrent operations on one parent payment, judged by the database: the requests are fired together, then
 * the child rows, the parent's status and the ledger are read back with SQL. Every scenario uses a fresh payment.
 */

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let splitMerchantId: string;
let secondMerchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({
    creds,
    merchantId,
    partnerIds: [splitMerchantId, secondMerchantId],
    tokenId,
  } = await createWorld(stack, {
    account: 'Concurrency Platform',
    partners: ['Split partner', 'Second split partner'],
  }));
  await setMerchantFeatures(stack, merchantId, { secondSplit: true });
});
afterAll(() => stack?.close());

// After every scenario the whole ledger balances, in total and posting by posting.
afterEach(async () => {
  const [total] = await stack.sql`select coalesce(sum(amount), 0)::bigint as sum from ledger_entries`;
  expect(Number(total!.sum)).toBe(0);
  const unbalanced = await stack.sql`
    select posting_id, sum(amount)::bigint as sum from ledger_entries group by posting_id having sum(amount) <> 0`;
  expect(unbalanced).toEqual([]);
});

const pay = (body: unknown) => postPayment(stack, creds, body);
const parallel = (count: number, body: () => unknown) => Promise.all(Array.from({ length: count }, () => pay(body())));

async function capture(amount: string, split?: string): Promise<string> {
  const body = split
    ? splitBody({ merchantId, tokenId, splitMerchantId, amount, splitAmount: split })
    : tokenv3Body({ merchantId, tokenId, amount });
  return (await createPayment(stack, creds, body)).body.data.id;
}

/** Splits the responses into the 201s and the others, asserting each other one is exactly `status code`. */
function partition(responses: ApiResponse[], status: number, code: string, pointer?: string) {
  const created = responses.filter((response) => response.status === 201);
  const refused = responses.filter((response) => response.status !== 201);
  for (const response of refused) expectError(response, status, code, pointer);
  return { created, refused };
}

type ChildRow = {
  id: string;
  refund_type: string | null;
  status: string;
  amount: string;
  split_amount: string | null;
  split_merchant_id: string | null;
  merchant_id: string;
};

/** The child records of one type of a parent, as the database has them. */
async function children(parentId: string, paymentType: string) {
  return stack.sql<ChildRow[]>`
    select id, refund_type, status, amount, split_amount, split_merchant_id, merchant_id
    from payments where parent_payment_id = ${parentId} and payment_type = ${paymentType} order by id`;
}

async function childCount(parentId: string): Promise<number> {
  const [row] = await stack.sql`select count(*)::int as n from payments where parent_payment_id = ${parentId}`;
  return Number(row!.n);
}

async function parentStatus(parentId: string): Promise<string> {
  const [row] = await stack.sql`select status from payments where id = ${parentId}`;
  return row!.status;
}

/** The ledger balance of one ledger account, over the postings of a parent and its children. */
async function movedOn(parentId: string, ledgerAccount: string): Promise<number> {
  const [row] = await stack.sql`
    select coalesce(sum(e.amount), 0)::bigint as sum
    from ledger_entries e
    where e.ledger_account = ${ledgerAccount}
      and e.payment_id in (select id from payments where id = ${parentId} or parent_payment_id = ${parentId})`;
  return Number(row!.sum);
}

const pending = (merchant: string) => `merchant:${merchant}:pending`;
const amounts = (rows: { amount: string }[]) => rows.reduce((sum, row) => sum + Number(row.amount), 0);

describe('concurrent operations on one payment', () => {
  it('20 partial refunds of 150 on 1000: exactly 6 land, 14 are refused, 100 stays refundable', async () => {
    const parentId = await capture('1000');
    const responses = await parallel(20, () => refundBody(parentId, '150', newRequestId()));

    const { created, refused } = partition(
      responses,
      400,
      'refund_exceeds_amount',
      '/data/attributes/transaction/amount',
    );
    expect(created).toHaveLength(6);
    expect(refused).toHaveLength(14);
    for (const response of created) {
      expect(response.body.data.attributes).toMatchObject({
        paymentType: 'refund',
        parentPaymentId: parentId,
        status: 'pending',
        transaction: { amount: '150', refundType: 'refund' },
      });
    }

    const rows = await children(parentId, 'refund');
    expect(rows).toHaveLength(6);
    expect(await childCount(parentId)).toBe(6);
    expect(rows.every((row) => row.refund_type === 'refund' && row.status === 'pending')).toBe(true);
    expect(rows.every((row) => row.merchant_id === merchantId && row.amount === '150')).toBe(true);
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(created.map((response) => response.body.data.id)));
    expect(await parentStatus(parentId)).toBe('partial_refund');

    const got = await stack.call('GET', `/payments/${parentId}`, { as: creds });
    expect(got.status).toBe(200);
    expect(got.body.data.attributes.refundableAmount).toBe('100');
    expect(got.body.data.attributes.refunds).toHaveLength(6);

    // Capture +941, six refunds −900; the card rail got back 900 of the 1000; fees are kept.
    expect(await movedOn(parentId, pending(merchantId))).toBe(941 - 900);
    expect(await movedOn(parentId, 'external:card')).toBe(-1000 + 900);
    expect(await movedOn(parentId, 'operator:fees')).toBe(59);
  });

  it('5 full-amount refunds on the processing day: exactly one void, the others 422 payment_not_refundable', async () => {
    const parentId = await capture('1000');
    const responses = await parallel(5, () => refundBody(parentId, '1000', newRequestId()));

    const { created, refused } = partition(
      responses,
      422,
      'payment_not_refundable',
      '/data/attributes/parentPaymentId',
    );
    expect(created).toHaveLength(1);
    expect(refused).toHaveLength(4);
    expect(created[0]!.body.data.attributes).toMatchObject({
      paymentType: 'refund',
      parentPaymentId: parentId,
      status: 'completed',
      transaction: { amount: '1000', refundType: 'void' },
    });

    expect(await childCount(parentId)).toBe(1);
    const rows = await children(parentId, 'refund');
    expect(rows).toMatchObject([{ refund_type: 'void', status: 'completed', amount: '1000', merchant_id: merchantId }]);
    expect(await parentStatus(parentId)).toBe('voided');

    // The capture is reversed exactly: nothing is left anywhere.
    for (const account of [pending(merchantId), 'external:card', 'operator:fees']) {
      expect(await movedOn(parentId, account)).toBe(0);
    }
    const postings = await stack.sql`
      select kind, count(distinct posting_id)::int as n from ledger_entries
      where payment_id in (select id from payments where id = ${parentId} or parent_payment_id = ${parentId})
      group by kind order by kind`;
    expect(postings.map(({ kind, n }) => [kind, Number(n)])).toEqual([
      ['capture', 1],
      ['void', 1],
    ]);
  });

  it('10 split refunds of 300 on a split of 1000: exactly 3 land, 7 are refused', async () => {
    const parentId = await capture('5000', '1000');
    const responses = await parallel(10, () => refundSplitBody(parentId, '300', newRequestId()));

    const { created, refused } = partition(
      responses,
      400,
      'refund_exceeds_amount',
      '/data/attributes/transaction/amount',
    );
    expect(created).toHaveLength(3);
    expect(refused).toHaveLength(7);

    const rows = await children(parentId, 'refundSplit');
    expect(rows).toHaveLength(3);
    expect(await childCount(parentId)).toBe(3);
    expect(amounts(rows)).toBe(900);
    expect(
      rows.every(
        (row) =>
          row.merchant_id === merchantId &&
          row.split_merchant_id === splitMerchantId &&
          row.split_amount === '300' &&
          row.status === 'pending',
      ),
    ).toBe(true);
    expect(await parentStatus(parentId)).toBe('partial_refund');

    // Fees of 5000: 145 + 30 = 175; net 5000 − 175 − 1000 = 3825.
    expect(await movedOn(parentId, pending(splitMerchantId))).toBe(1000 - 900);
    expect(await movedOn(parentId, pending(merchantId))).toBe(3825);
    expect(await movedOn(parentId, 'external:card')).toBe(-5000 + 900);
    const got = await stack.call('GET', `/payments/${parentId}`, { as: creds });
    expect(got.body.data.attributes.splits[0]).toMatchObject({ merchantId: splitMerchantId, refundableAmount: '100' });
  });

  it('5 second splits of 300 on a net of 941: the 3 that fit land, the sum stays below the net', async () => {
    const parentId = await capture('1000');
    const responses = await parallel(5, () => secondSplitBody(parentId, secondMerchantId, '300', newRequestId()));

    const { created, refused } = partition(responses, 400, 'invalid_split_amount', '/data/attributes/split/amount');
    expect(created).toHaveLength(3);
    expect(refused).toHaveLength(2);

    const rows = await children(parentId, 'secondSplit');
    expect(rows).toHaveLength(3);
    expect(await childCount(parentId)).toBe(3);
    expect(amounts(rows)).toBe(900);
    expect(amounts(rows)).toBeLessThan(941);
    expect(
      rows.every(
        (row) =>
          row.merchant_id === merchantId &&
          row.split_merchant_id === secondMerchantId &&
          row.split_amount === '300' &&
          row.status === 'completed',
      ),
    ).toBe(true);
    expect(await parentStatus(parentId)).toBe('pending');

    expect(await movedOn(parentId, pending(merchantId))).toBe(941 - 900);
    expect(await movedOn(parentId, pending(secondMerchantId))).toBe(900);
    expect(await movedOn(parentId, 'external:card')).toBe(-1000);
    expect(await movedOn(parentId, 'operator:fees')).toBe(59);
  });
});

describe('operations on different payments, group-committed together', () => {
  it('a refusal among them fails alone and stores nothing under its key; duplicates of one key make one refund', async () => {
    const parents = await Promise.all(Array.from({ length: 8 }, () => capture('1000')));
    const [keyed, ...others] = parents as [string, ...string[]];
    const refusedParent = others.pop() as string;
    const key = newRequestId();
    const refusedKey = newRequestId();
    const fired = [
      ...others.map((id) => pay(refundBody(id, '100'))),
      ...Array.from({ length: 3 }, () => pay(refundBody(keyed, '100', key))),
      pay(refundBody(refusedParent, '5000', refusedKey)),
    ];
    const responses = await Promise.all(fired);
    const refused = responses.pop() as ApiResponse;
    const duplicates = responses.splice(others.length);

    // Its neighbours landed, each once.
    expect(responses.map((response) => response.status)).toEqual(others.map(() => 201));
    for (const id of others) expect(await childCount(id)).toBe(1);
    // One key: one refund, the same answer three times, two of them replays.
    expect(duplicates.map((response) => response.status)).toEqual([201, 201, 201]);
    expect(new Set(duplicates.map((response) => response.body.data.id)).size).toBe(1);
    expect(duplicates.filter((response) => response.headers.get('idempotent-replayed') === 'true')).toHaveLength(2);
    expect(await childCount(keyed)).toBe(1);
    // The refusal: its error, nothing written, and its key free for a request that can be made.
    expectError(refused, 400, 'refund_exceeds_amount', '/data/attributes/transaction/amount');
    expect(await childCount(refusedParent)).toBe(0);
    expect(await stack.sql`select 1 from idempotency_keys where request_id = ${refusedKey}`).toHaveLength(0);
    expect((await pay(refundBody(refusedParent, '100', refusedKey))).status).toBe(201);
    expect(await childCount(refusedParent)).toBe(1);
  });
});
