import { newId } from '@pps/shared/ids';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, setMerchantFeatures, setMerchantStatus } from '../fixtures/merchants';
import {
  cards,
  createCardToken,
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
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
let splitMerchantId: string;
let thirdMerchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({
    creds,
    other,
    merchantId,
    partnerIds: [splitMerchantId, thirdMerchantId],
    tokenId,
  } = await createWorld(stack, {
    account: 'Acme',
    other: 'Globex',
    partners: ['Platform fees', 'Delivery partner'],
  }));
});
afterAll(() => stack?.close());

const pay = (body: unknown, as: Credentials = creds) => postPayment(stack, as, body);
const get = (id: string) => stack.call('GET', `/payments/${id}`, { as: creds });
const payment = async (amount = '1000') =>
  (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount }))).body.data.id as string;
const splitPayment = async (amount: string, splitAmount: string) =>
  (await createPayment(stack, creds, splitBody({ merchantId, tokenId, splitMerchantId, amount, splitAmount }))).body
    .data.id as string;

const paymentBalance = async (paymentIds: string[], ledgerAccount: string) =>
  Number(
    (
      await stack.sql`select coalesce(sum(amount), 0)::int as total from ledger_entries
        where ledger_account = ${ledgerAccount} and payment_id = any(${paymentIds})`
    )[0]!.total,
  );
const childIds = async (parentId: string) =>
  (await stack.sql`select id from payments where parent_payment_id = ${parentId} order by created_at, id`).map(
    (row) => row.id as string,
  );
const eventTypes = async (resourceId: string) =>
  (await stack.sql`select type from events where resource_id = ${resourceId} order by sequence`).map((row) => row.type);
const counts = async () =>
  (
    await stack.sql`select (select count(*) from payments)::int as payments,
      (select count(*) from ledger_entries)::int as entries, (select count(*) from events)::int as events`
  )[0];

describe('void', () => {
  it('voids a full-amount refund on the processing day: everything reversed, fees and split share included', async () => {
    const id = await splitPayment('5000', '700');
    const before = await get(id);
    expect(before.body.data.attributes.voidableUntil).not.toBeNull();

    const res = await pay(refundBody(id, '5000'));
    expect(res.status).toBe(201);
    const record = res.body.data;
    expect(res.body.links.self).toBe(`http://localhost:8080/payments/${record.id}`);
    expect(record.attributes).toMatchObject({
      paymentType: 'refund',
      parentPaymentId: id,
      merchantId,
      status: 'completed',
      transaction: { code: '0', message: 'Voided', amount: '5000', currency: 'USD', refundType: 'void' },
    });

    const parent = (await get(id)).body.data.attributes;
    expect(parent).toMatchObject({
      status: 'voided',
      refundableAmount: '0',
      voidableUntil: null,
      splits: [{ merchantId: splitMerchantId, amount: '700', status: 'voided', refundableAmount: '0' }],
      refunds: [{ id: record.id, type: 'void', amount: '5000', status: 'completed' }],
    });
    const ids = [id, record.id];
    expect(await paymentBalance(ids, `merchant:${merchantId}:pending`)).toBe(0);
    expect(await paymentBalance(ids, `merchant:${splitMerchantId}:pending`)).toBe(0);
    expect(await paymentBalance(ids, 'operator:fees')).toBe(0);
    expect(await paymentBalance(ids, 'external:card')).toBe(0);
    const [row] = await stack.sql`select voided_at from payments where id = ${id}`;
    expect(row!.voided_at).not.toBeNull();
    expect(await eventTypes(id)).toEqual(['payment.created', 'payment.voided']);
    expect(await eventTypes(record.id)).toEqual(['payment.created']);
    const [voided] = await stack.sql`
      select payload from events where resource_id = ${id} and type = 'payment.voided'`;
    expect(voided!.payload.data).toMatchObject({ id, previousStatus: 'pending', sequence: 2 });
    expect(voided!.payload.data.attributes.status).toBe('voided');

    const again = await pay(refundBody(id, '100'));
    expect(expectError(again, 422, 'payment_not_refundable', '/data/attributes/parentPaymentId').detail).toContain(
      'voided',
    );
  });

  it('refunds instead when the amount is not the full amount, or a refund was made already', async () => {
    const id = await payment('1000');
    const partial = await pay(refundBody(id, '999'));
    expect(partial.body.data.attributes.transaction.refundType).toBe('refund');
    const rest = await pay(refundBody(id, '1'));
    expect(rest.body.data.attributes).toMatchObject({ status: 'pending', transaction: { refundType: 'refund' } });
    expect((await get(id)).body.data.attributes.status).toBe('refunded');
  });

  it('never voids a split payment that had a split refund or a second split', async () => {
    const refunded = await splitPayment('2000', '500');
    expect((await pay(refundSplitBody(refunded, '100'))).status).toBe(201);
    expect((await get(refunded)).body.data.attributes.voidableUntil).toBeNull();
    expectError(
      await pay(refundBody(refunded, '2000')),
      400,
      'refund_exceeds_amount',
      '/data/attributes/transaction/amount',
    );
  });
});

describe('refund', () => {
  it('takes partial refunds up to exactly the gross, then 422 already_refunded', async () => {
    const id = await payment('1000');
    const entriesBefore = (await counts())!.entries;
    const amounts = ['250', '250', '400', '100'];
    const records: string[] = [];
    for (const [index, amount] of amounts.entries()) {
      const res = await pay(refundBody(id, amount));
      expect(res.status).toBe(201);
      records.push(res.body.data.id);
      expect(res.body.data.attributes).toMatchObject({
        paymentType: 'refund',
        parentPaymentId: id,
        status: 'pending',
        transaction: { amount, refundType: 'refund', grossMinusNet: '0' },
      });
      expect(res.body.data.attributes.settleAt).not.toBeNull();
      const parent = (await get(id)).body.data.attributes;
      expect(parent.status).toBe(index === amounts.length - 1 ? 'refunded' : 'partial_refund');
    }
    const parent = (await get(id)).body.data.attributes;
    expect(parent.refundableAmount).toBe('0');
    expect(parent.refunds.map((refund: { id: string }) => refund.id)).toEqual(records);
    expect(parent.refunds[0]).toMatchObject({ type: 'refund', amount: '250', status: 'pending' });
    expect(parent.refunds[0].createdAt).toMatch(/Z$/);

    // Each refund took its amount from the merchant and gave it back to the card; the fees stayed.
    expect((await counts())!.entries - entriesBefore).toBe(2 * amounts.length);
    expect(await paymentBalance([id, ...records], `merchant:${merchantId}:pending`)).toBe(941 - 1000);
    expect(await paymentBalance([id, ...records], 'operator:fees')).toBe(59);
    expect(await eventTypes(id)).toEqual([
      'payment.created',
      'payment.partially_refunded',
      'payment.partially_refunded',
      'payment.partially_refunded',
      'payment.refunded',
    ]);

    const snapshot = await counts();
    expectError(await pay(refundBody(id, '1')), 422, 'already_refunded', '/data/attributes/parentPaymentId');
    expect(await counts()).toEqual(snapshot);
  });

  it('makes a refund record a payment of its own: readable, with its status, and listed under the merchant', async () => {
    const id = await payment('1200');
    const refundId = (await pay(refundBody(id, '200'))).body.data.id;
    const record = await get(refundId);
    expect(record.status).toBe(200);
    expect(record.body.data.attributes).toMatchObject({
      paymentType: 'refund',
      parentPaymentId: id,
      refundableAmount: '0',
    });
    const status = await stack.call('GET', `/payments/status/${refundId}`, { as: creds });
    expect(status.body.data.attributes).toMatchObject({ status: 'pending', paymentType: 'refund', amount: '200' });
    const list = await stack.call('GET', `/payments?id=${merchantId}&limit=100`, { as: creds });
    expect(list.body.data.map((item: { id: string }) => item.id)).toContain(refundId);
  });

  it('refunds a split payment whole through refund + refundSplit: refunded, refundableAmount 0', async () => {
    const id = await splitPayment('5000', '1000');
    expect((await get(id)).body.data.attributes.refundableAmount).toBe('4000');
    expectError(await pay(refundBody(id, '4001')), 400, 'refund_exceeds_amount', '/data/attributes/transaction/amount');

    const primary = await pay(refundBody(id, '4000'));
    expect(primary.status).toBe(201);
    let parent = (await get(id)).body.data.attributes;
    expect(parent).toMatchObject({ status: 'partial_refund', refundableAmount: '0' });
    expect(parent.splits[0]).toMatchObject({ status: 'pending', refundableAmount: '1000' });

    const first = await pay(refundSplitBody(id, '600'));
    expect(first.status).toBe(201);
    expect(first.body.data.attributes).toMatchObject({
      paymentType: 'refundSplit',
      parentPaymentId: id,
      status: 'pending',
      transaction: { amount: '600', code: '0' },
    });
    expect(first.body.data.attributes.transaction.refundType).toBeUndefined();
    parent = (await get(id)).body.data.attributes;
    expect(parent.splits[0]).toMatchObject({ status: 'partial_refund', refundableAmount: '400' });
    expectError(
      await pay(refundSplitBody(id, '401')),
      400,
      'refund_exceeds_amount',
      '/data/attributes/transaction/amount',
    );

    const last = await pay(refundSplitBody(id, '400'));
    expect(last.status).toBe(201);
    parent = (await get(id)).body.data.attributes;
    expect(parent).toMatchObject({ status: 'refunded', refundableAmount: '0' });
    expect(parent.splits[0]).toMatchObject({ status: 'refunded', refundableAmount: '0' });
    expect(parent.refunds.map((refund: { type: string }) => refund.type)).toEqual([
      'refund',
      'refundSplit',
      'refundSplit',
    ]);

    const records = await childIds(id);
    expect(await paymentBalance([id, ...records], `merchant:${splitMerchantId}:pending`)).toBe(0);
    expect(await eventTypes(id)).toEqual([
      'payment.created',
      'payment.partially_refunded',
      'payment.partially_refunded',
      'payment.refunded',
    ]);
    // The split merchant's list shows the split refunds it paid.
    const list = await stack.call('GET', `/payments?id=${splitMerchantId}&limit=100`, { as: creds });
    expect(list.body.data.map((item: { id: string }) => item.id)).toEqual(expect.arrayContaining(records.slice(1)));
  });

  it('refunds an ACH payment only once completed, and never voids it', async () => {
    const id = newId('payment');
    // The row an ACH debit has between creation and settlement (ACH creation lands with the settlement work).
    await stack.sql`
      insert into payments (id, account_id, merchant_id, payment_type, request_type, status, amount, currency, invoice,
        gross, fee_fixed, rate_basis_points, gross_minus_net, net, code, message, created_at, updated_at)
      values (${id}, ${creds.accountId}, ${merchantId}, 'ACH', 'ACH', 'pending', 2000, 'USD', 'INV-ACH',
        2000, 30, 290, 88, 1912, '0', 'Accepted', now(), now())`;
    expect((await get(id)).body.data.attributes).toMatchObject({ refundableAmount: '0', voidableUntil: null });
    const snapshot = await counts();
    expectError(await pay(refundBody(id, '2000')), 422, 'ach_not_settled', '/data/attributes/parentPaymentId');
    expect(await counts()).toEqual(snapshot);

    await stack.sql`update payments set status = 'completed', settled_at = now() where id = ${id}`;
    const res = await pay(refundBody(id, '2000'));
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ status: 'pending', transaction: { refundType: 'refund' } });
    // Settled parent: the refund comes out of the available balance, back to the ACH rail, 3 business days out.
    const [entry] = await stack.sql`
      select ledger_account, amount::int from ledger_entries where payment_id = ${res.body.data.id} and amount < 0`;
    expect(entry).toEqual({ ledger_account: `merchant:${merchantId}:available`, amount: -2000 });
    const [ach] = await stack.sql`
      select amount::int from ledger_entries where payment_id = ${res.body.data.id} and ledger_account = 'external:ach'`;
    expect(ach!.amount).toBe(2000);
    const created = new Date(res.body.data.attributes.createdAt).getTime();
    const settleAt = new Date(res.body.data.attributes.settleAt).getTime();
    expect(settleAt - created).toBeGreaterThan(3 * 86_400_000 - 86_400_000);
    expect((await get(id)).body.data.attributes.status).toBe('refunded');
  });
});

describe('second split', () => {
  it('422s until the operator enables it, then moves money between balances, completed at once', async () => {
    const id = await payment('1000'); // net 941
    const pointer = '/data/attributes/parentPaymentId';
    const snapshot = await counts();
    expectError(await pay(secondSplitBody(id, thirdMerchantId, '100')), 422, 'second_split_not_enabled', pointer);
    expect(await counts()).toEqual(snapshot);

    await setMerchantFeatures(stack, merchantId, { secondSplit: true });
    const res = await pay(secondSplitBody(id, thirdMerchantId, '300'));
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      paymentType: 'secondSplit',
      parentPaymentId: id,
      status: 'completed',
      transaction: { code: '0', amount: '300', currency: 'USD' },
    });
    const parent = (await get(id)).body.data.attributes;
    expect(parent).toMatchObject({ status: 'pending', voidableUntil: null, refundableAmount: '1000' });
    expect(parent.splits).toEqual([
      { merchantId: thirdMerchantId, amount: '300', status: 'completed', refundableAmount: '0' },
    ]);
    expect(await paymentBalance([res.body.data.id], `merchant:${merchantId}:pending`)).toBe(-300);
    expect(await paymentBalance([res.body.data.id], `merchant:${thirdMerchantId}:pending`)).toBe(300);
    expect(await eventTypes(id)).toEqual(['payment.created']);
    expect(await eventTypes(res.body.data.id)).toEqual(['payment.created']);

    // Remaining net 641: the amount must stay strictly below it.
    const amountPointer = '/data/attributes/split/amount';
    expectError(await pay(secondSplitBody(id, thirdMerchantId, '641')), 400, 'invalid_split_amount', amountPointer);
    expectError(await pay(secondSplitBody(id, thirdMerchantId, '0')), 400, 'invalid_field', amountPointer);
    expect((await pay(secondSplitBody(id, splitMerchantId, '640'))).status).toBe(201);
    // A refund after second splits is not a void and may drive the primary's balance negative.
    expect((await pay(refundBody(id, '1000'))).body.data.attributes.transaction.refundType).toBe('refund');
    expectError(await pay(secondSplitBody(id, thirdMerchantId, '1')), 422, 'payment_not_splittable', pointer);
  });

  it('checks the second merchant: unknown 404, foreign 403, inactive 422, the primary itself 400', async () => {
    await setMerchantFeatures(stack, merchantId, { secondSplit: true });
    const id = await payment('1000');
    const pointer = '/data/attributes/split/merchantId';
    const foreign = await createMerchant(stack, other);
    const suspended = await createMerchant(stack, creds);
    await setMerchantStatus(stack, suspended, 'suspended');
    const snapshot = await counts();
    expectError(
      await pay(secondSplitBody(id, 'mer_0000000000aaaaaaaaaaaaaaaa', '100')),
      404,
      'merchant_not_found',
      pointer,
    );
    expectError(await pay(secondSplitBody(id, foreign, '100')), 403, 'merchant_forbidden', pointer);
    expectError(await pay(secondSplitBody(id, suspended, '100')), 422, 'merchant_not_active', pointer);
    expectError(await pay(secondSplitBody(id, merchantId, '100')), 400, 'invalid_split_merchant', pointer);
    expect(await counts()).toEqual(snapshot);
  });
});

describe('bad input changes nothing', () => {
  it('404s an unknown or malformed parent and 403s another account’s, pointing at parentPaymentId', async () => {
    const pointer = '/data/attributes/parentPaymentId';
    const id = await payment('1000');
    const snapshot = await counts();
    for (const body of [refundBody, refundSplitBody]) {
      expectError(await pay(body('pay_0000000000aaaaaaaaaaaaaaaa', '100')), 404, 'payment_not_found', pointer);
      expectError(await pay(body('not-a-payment', '100')), 404, 'payment_not_found', pointer);
      expectError(await pay(body(id, '100'), other), 403, 'payment_forbidden', pointer);
    }
    expectError(await pay(secondSplitBody(id, merchantId, '100'), other), 403, 'payment_forbidden', pointer);
    expect(await counts()).toEqual(snapshot);
  });

  it('400s an amount above the refundable amount, zero, or another currency', async () => {
    const id = await payment('1000');
    const snapshot = await counts();
    const amount = '/data/attributes/transaction/amount';
    const error = expectError(await pay(refundBody(id, '1001')), 400, 'refund_exceeds_amount', amount);
    expect(error.detail).toContain('1000');
    expectError(await pay(refundBody(id, '0')), 400, 'invalid_field', amount);
    const euros = refundBody(id, '100');
    euros.data.attributes.transaction = { amount: '100', currency: 'EUR' };
    expectError(await pay(euros), 400, 'invalid_field', '/data/attributes/transaction/currency');
    expect(await counts()).toEqual(snapshot);
  });

  it('422s a refund of a failed payment or of a refund record, and a split refund without a split', async () => {
    const declined = await createCardToken(stack, creds, cards.doNotHonor);
    const failedId = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId: declined }), 402)).body.meta
      .paymentId;
    const id = await payment('1000');
    const refundId = (await pay(refundBody(id, '100'))).body.data.id;
    const snapshot = await counts();
    const pointer = '/data/attributes/parentPaymentId';
    expect(
      expectError(await pay(refundBody(failedId, '100')), 422, 'payment_not_refundable', pointer).detail,
    ).toContain('failed');
    expect(expectError(await pay(refundBody(refundId, '50')), 422, 'payment_not_refundable', pointer).detail).toContain(
      'refund record',
    );
    expectError(await pay(refundSplitBody(refundId, '50')), 422, 'payment_not_refundable', pointer);
    expectError(await pay(secondSplitBody(refundId, thirdMerchantId, '50')), 422, 'payment_not_refundable', pointer);
    expectError(await pay(refundSplitBody(id, '50')), 422, 'payment_has_no_split', pointer);
    expect(await counts()).toEqual(snapshot);
  });
});

describe('idempotency', () => {
  it('refunds once for a retried requestId and replays the first answer; another body is a 409', async () => {
    const id = await payment('1000');
    const requestId = newRequestId();
    const first = await pay(refundBody(id, '300', requestId));
    const again = await pay(refundBody(id, '300', requestId));
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await childIds(id)).toEqual([first.body.data.id]);
    expectError(await pay(refundBody(id, '200', requestId)), 409, 'idempotency_key_reused', '/data/requestId');

    const voidKey = newRequestId();
    const other = await payment('800');
    const [a, b] = await Promise.all([pay(refundBody(other, '800', voidKey)), pay(refundBody(other, '800', voidKey))]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.id).toBe(b.body.data.id);
    expect(await childIds(other)).toHaveLength(1);
  });
});
