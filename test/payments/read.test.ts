import { voidWindowEnd } from '@pps/shared/clock';
import { paymentStatuses, paymentTransitions } from '@pps/shared/states';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { cards, createCardToken, createPayment, splitBody, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
let splitMerchantId: string;
let tokenId: string;
let approvedId: string;
let splitId: string;
let failedId: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({
    creds,
    other,
    merchantId,
    partnerIds: [splitMerchantId],
    tokenId,
  } = await createWorld(stack, { account: 'Acme', other: 'Globex', partners: ['Platform fees'] }));
  const declined = await createCardToken(stack, creds, cards.doNotHonor);
  approvedId = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '1000' }))).body.data.id;
  splitId = (
    await createPayment(
      stack,
      creds,
      splitBody({ merchantId, tokenId, splitMerchantId, amount: '5000', splitAmount: '700' }),
    )
  ).body.data.id;
  failedId = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId: declined }), 402)).body.meta
    .paymentId;
});
afterAll(() => stack?.close());

const get = (path: string, as: Credentials = creds) => stack.call('GET', path, { as });

describe('GET /payments/{id}', () => {
  it('returns the full resource with refundableAmount and voidableUntil', async () => {
    const res = await get(`/payments/${approvedId}`);
    expect(res.status).toBe(200);
    expect(res.body.links.self).toBe(`http://localhost:8080/payments/${approvedId}`);
    const attributes = res.body.data.attributes;
    expect(res.body.data).toMatchObject({ type: 'payments', id: approvedId });
    expect(attributes).toMatchObject({
      paymentType: 'card',
      merchantId,
      status: 'pending',
      settledAt: null,
      transaction: {
        code: '0',
        amount: '1000',
        gross: '1000',
        net: '941',
        grossMinusNet: '59',
        fee: '30',
        rate: '2.9',
      },
      card: { brand: 'visa', last4: '1111', holder: 'Jane Doe' },
      billingAddress: { zip: '94105', country: 'USA' },
      refunds: [],
      miscData: '{"email":"buyer@example.com"}',
      refundableAmount: '1000',
    });
    expect(attributes.parentPaymentId).toBeUndefined();
    expect(attributes.splits).toBeUndefined();
    expect(attributes.updatedAt).toBe(attributes.createdAt);
    expect(attributes.voidableUntil).toBe(voidWindowEnd(new Date(attributes.createdAt)).toISOString());
    expect(JSON.stringify(res.body)).not.toContain('4111111111111111');
  });

  it('shows the splits and takes the split out of the refundable amount', async () => {
    const { body } = await get(`/payments/${splitId}`);
    expect(body.data.attributes).toMatchObject({
      splits: [{ merchantId: splitMerchantId, amount: '700', status: 'pending', refundableAmount: '700' }],
      transaction: { gross: '5000', grossMinusNet: '175', net: '4125' },
      refundableAmount: '4300',
    });
  });

  it('404s an unknown or malformed id and 403s another account’s payment', async () => {
    expectError(await get('/payments/pay_0000000000aaaaaaaaaaaaaaaa'), 404, 'payment_not_found');
    expectError(await get('/payments/whatever'), 404, 'payment_not_found');
    expectError(await get(`/payments/${approvedId}`, other), 403, 'payment_forbidden');
  });
});

describe('GET /payments/status/{id}', () => {
  it('returns the light status document', async () => {
    const res = await get(`/payments/status/${failedId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        type: 'payments',
        id: failedId,
        attributes: {
          status: 'failed',
          paymentType: 'card',
          amount: '1000',
          currency: 'USD',
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      },
    });
  });

  it('404s and 403s like retrieval', async () => {
    expectError(await get('/payments/status/pay_0000000000aaaaaaaaaaaaaaaa'), 404, 'payment_not_found');
    expectError(await get(`/payments/status/${approvedId}`, other), 403, 'payment_forbidden');
  });
});

describe('GET /payments/states', () => {
  it('serves the state machine as data', async () => {
    const res = await get('/payments/states');
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.statuses).toEqual([...paymentStatuses]);
    expect(res.body.data.attributes.transitions).toEqual(paymentTransitions.map((t) => ({ ...t })));
    expect(res.body.data.attributes.finalStatuses).toEqual(['failed', 'voided', 'refunded']);
  });
});

describe('GET /payments?id=', () => {
  it("lists the merchant's payments newest first with the list envelope", async () => {
    const res = await get(`/payments?id=${merchantId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((item: { id: string }) => item.id)).toEqual([failedId, splitId, approvedId]);
    expect(res.body.meta).toEqual({ total: 3, limit: 25, offset: 0, hasMore: false });
    expect(res.body.links).toEqual({ self: `http://localhost:8080/payments?id=${merchantId}`, next: null });
    expect(res.body.data[2].attributes).toMatchObject({
      paymentType: 'card',
      status: 'pending',
      createdAt: expect.any(String),
      transaction: { amount: '1000', currency: 'USD', invoice: 'INV-1001', gross: '1000', net: '941' },
    });
  });

  it('lists a split merchant the payments it takes a share of', async () => {
    const res = await get(`/payments?id=${splitMerchantId}`);
    expect(res.body.data.map((item: { id: string }) => item.id)).toEqual([splitId]);
  });

  it('filters by status and dates and pages with links.next', async () => {
    const failed = await get(`/payments?id=${merchantId}&status=failed`);
    expect(failed.body.data.map((item: { id: string }) => item.id)).toEqual([failedId]);
    const page = await get(`/payments?id=${merchantId}&limit=2`);
    expect(page.body.meta).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
    const next = new URL(page.body.links.next);
    const second = await get(`${next.pathname}${next.search}`);
    expect(second.body.data.map((item: { id: string }) => item.id)).toEqual([approvedId]);
    expect(second.body.links.next).toBeNull();
    const from = (await get(`/payments/${splitId}`)).body.data.attributes.createdAt;
    const after = await get(`/payments?id=${merchantId}&startDate=${encodeURIComponent(from)}`);
    expect(after.body.data.map((item: { id: string }) => item.id)).toEqual([failedId, splitId]);
    const before = await get(`/payments?id=${merchantId}&endDate=${encodeURIComponent(from)}`);
    expect(before.body.data.map((item: { id: string }) => item.id)).toEqual([approvedId]);
    const future = await get(`/payments?id=${merchantId}&startDate=2999-01-01`);
    expect(future.body.data).toEqual([]);
  });

  it('400s bad parameters with source.parameter', async () => {
    const parameterOf = (res: { body: { errors: { source?: { parameter?: string } }[] } }) =>
      res.body.errors[0]!.source?.parameter;
    for (const [query, parameter, code] of [
      ['status=captured', 'status', 'invalid_field'],
      ['startDate=yesterday', 'startDate', 'invalid_field'],
      ['startDate=0000-01-01', 'startDate', 'invalid_field'],
      ['endDate=0001-01-01T00:00:00%2B01:00', 'endDate', 'invalid_field'],
      ['endDate=2026-13-01', 'endDate', 'invalid_field'],
      ['startDate=2026-02-01&endDate=2026-01-01', 'startDate', 'invalid_date_range'],
      ['limit=0', 'limit', 'invalid_field'],
      ['limit=101', 'limit', 'invalid_field'],
      ['offset=-1', 'offset', 'invalid_field'],
    ]) {
      const res = await get(`/payments?id=${merchantId}&${query}`);
      expectError(res, 400, code!);
      expect(parameterOf(res)).toBe(parameter);
    }
  });

  it('400s a malformed or unknown merchant id and 403s another account’s merchant', async () => {
    for (const query of ['?id=not-a-merchant', '?id=mer_0000000000aaaaaaaaaaaaaaaa']) {
      const res = await get(`/payments${query}`);
      expectError(res, 400, 'invalid_merchant_id');
      expect(res.body.errors[0].source).toEqual({ parameter: 'id' });
    }
    expectError(await get(`/payments?id=${merchantId}`, other), 403, 'merchant_forbidden');
  });
});

describe('events and ledger', () => {
  it('writes payment.created with the resource exactly as GET returns it', async () => {
    const [event] = await stack.sql`select type, payload, request_id from events where resource_id = ${approvedId}`;
    expect(event!.type).toBe('payment.created');
    const { data } = (await get(`/payments/${approvedId}`)).body;
    expect(event!.payload.data).toEqual({ ...data, previousStatus: null, sequence: 1 });
    expect(event!.request_id).toEqual(expect.any(String));
  });

  it('writes payment.failed for a decline, and no ledger posting', async () => {
    const events = await stack.sql`select type from events where resource_id = ${failedId}`;
    expect(events.map((event) => event.type)).toEqual(['payment.failed']);
    const entries = await stack.sql`select 1 from ledger_entries where payment_id = ${failedId}`;
    expect(entries).toHaveLength(0);
  });

  it('posts the capture: external −gross, merchant pending +net, split +share, fees +grossMinusNet', async () => {
    const entries = await stack.sql`
      select ledger_account, amount::int as amount from ledger_entries where payment_id = ${splitId} order by id`;
    expect(entries.map((entry) => [entry.ledger_account, entry.amount])).toEqual([
      ['external:card', -5000],
      [`merchant:${merchantId}:pending`, 4125],
      [`merchant:${splitMerchantId}:pending`, 700],
      ['operator:fees', 175],
    ]);
    const [total] = await stack.sql`select coalesce(sum(amount), 0)::int as sum from ledger_entries`;
    expect(total!.sum).toBe(0);
    const unbalanced = await stack.sql`
      select posting_id from ledger_entries group by posting_id having sum(amount) <> 0`;
    expect(unbalanced).toHaveLength(0);
  });
});

describe('void window on the account clock', () => {
  it('shows voidableUntil while the account clock is inside the window, null after', async () => {
    const account = await stack.createAccount('Clocked');
    const merchant = await createMerchant(stack, account);
    const token = await createCardToken(stack, account);
    const { body } = await createPayment(stack, account, tokenv3Body({ merchantId: merchant, tokenId: token }));
    expect(body.data.attributes.voidableUntil).toBe(
      voidWindowEnd(new Date(body.data.attributes.createdAt)).toISOString(),
    );
    const moved = await stack.call('POST', '/sandbox/clock', {
      as: account,
      body: { data: { type: 'clock', attributes: { advanceSeconds: 2 * 86_400 } } },
    });
    expect(moved.status).toBe(200);
    const later = await get(`/payments/${body.data.id}`, account);
    expect(later.body.data.attributes.voidableUntil).toBeNull();
    expect(later.body.data.attributes.refundableAmount).toBe('1000');
    // createdAt came from the account clock too: a payment made now is dated two days later.
    const next = await createPayment(stack, account, tokenv3Body({ merchantId: merchant, tokenId: token }));
    const gap = Date.parse(next.body.data.attributes.createdAt) - Date.parse(body.data.attributes.createdAt);
    expect(gap).toBeGreaterThanOrEqual(2 * 86_400_000);
  });
});
