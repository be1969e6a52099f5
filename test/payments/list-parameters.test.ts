import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { achBody, createPayment, refundBody, tokenv3Body } from '../fixtures/payments';
import { createWorld, type World } from '../fixtures/world';
import { type ApiResponse, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let world: World;
let webhookId: string;

beforeAll(async () => {
  stack = await createTestStack();
  world = await createWorld(stack);
  const webhook = await stack.call('POST', '/webhooks', {
    as: world.creds,
    body: { data: { type: 'webhooks', attributes: { url: 'https://receiver.example.com/hooks', events: ['*'] } } },
  });
  expect(webhook.status).toBe(201);
  webhookId = webhook.body.data.id;
});
afterAll(async () => {
  await stack?.close();
});

const get = (path: string) => stack.call('GET', path, { as: world.creds });

/** The one `unknown_parameter` error naming `parameter`, with its detail. */
function unknownParameter(response: ApiResponse, parameter: string): string {
  expectError(response, 400, 'unknown_parameter');
  const error = response.body.errors.find(
    (item: { code: string; source?: { parameter?: string } }) =>
      item.code === 'unknown_parameter' && item.source?.parameter === parameter,
  );
  if (!error) throw new Error(`no unknown_parameter for ${parameter} in ${JSON.stringify(response.body.errors)}`);
  expect(error).toMatchObject({ status: '400', title: 'Bad Request', source: { parameter } });
  return error.detail;
}

describe('every list refuses a parameter it does not take', () => {
  // Each list's path and the start of a valid query, so only the unknown name is wrong; the last is the operator's.
  const lists: [string, () => string, boolean?][] = [
    ['GET /payments', () => `/payments?id=${world.merchantId}&`],
    ['GET /merchants', () => '/merchants?'],
    ['GET /merchants/{id}/balance-transactions', () => `/merchants/${world.merchantId}/balance-transactions?`],
    ['GET /payouts', () => '/payouts?'],
    ['GET /events', () => '/events?'],
    ['GET /webhooks', () => '/webhooks?'],
    ['GET /webhooks/{id}/deliveries', () => `/webhooks/${webhookId}/deliveries?`],
    ['GET /tokens', () => '/tokens?'],
    ['GET /customers', () => '/customers?'],
    ['GET /admin/ach-files', () => '/admin/ach-files?', true],
  ];

  it.each(lists)('%s: 400 unknown_parameter naming it, and the names the list takes', async (_, path, admin) => {
    const call = (query: string) =>
      admin ? stack.call('GET', `${path()}${query}`, { headers: stack.admin }) : get(`${path()}${query}`);
    expect((await call('limit=1')).status).toBe(200);
    const detail = unknownParameter(await call('limit=1&colour=blue'), 'colour');
    expect(detail).toMatch(/^colour is not a parameter of this list; .*it takes .*limit, offset, startingAfter/);
    // Every unknown name is its own error, even one an object's prototype would hide.
    const several = await call('colour=blue&__proto__=1&limit=1');
    unknownParameter(several, 'colour');
    unknownParameter(several, '__proto__');
    expect(several.body.errors).toHaveLength(2);
  });
});

describe('names a user may guess', () => {
  it('GET /payouts?id= says the merchant filter is merchantId, and lists nothing', async () => {
    const detail = unknownParameter(await get(`/payouts?id=${world.merchantId}`), 'id');
    expect(detail).toContain('the merchant filter is merchantId');
    expect((await get(`/payouts?merchantId=${world.merchantId}`)).status).toBe(200);
  });

  it('GET /customers?id= and GET /merchants?merchantId= point at the right name', async () => {
    expect(unknownParameter(await get(`/customers?id=${world.merchantId}`), 'id')).toContain('merchantId');
    expect(unknownParameter(await get(`/merchants?merchantId=${world.merchantId}`), 'merchantId')).toContain(
      'GET /merchants/{id}',
    );
  });

  it('balance transactions take their merchant from the path, and say so', async () => {
    const path = `/merchants/${world.merchantId}/balance-transactions`;
    expect(unknownParameter(await get(`${path}?merchantId=${world.merchantId}`), 'merchantId')).toContain(
      "the path's {id}",
    );
    expect(unknownParameter(await get(`${path}?id=${world.merchantId}`), 'id')).toContain("the path's {id}");
  });

  it('GET /events?resourceType= names the filters that exist', async () => {
    const detail = unknownParameter(await get('/events?resourceType=payments'), 'resourceType');
    expect(detail).toContain('type');
    expect(detail).toContain('resourceId');
  });

  it('GET /payments?paymentType= is a filter now, and type says so', async () => {
    expect(unknownParameter(await get(`/payments?id=${world.merchantId}&type=ACH`), 'type')).toContain('paymentType');
  });
});

describe('GET /payments: merchantId, paymentType and invoice', () => {
  let cardIds: string[];
  let invoiceB: string;
  let achId: string;
  let refundId: string;

  beforeAll(async () => {
    const { creds, merchantId, tokenId } = world;
    const card = (invoice: string) =>
      createPayment(
        stack,
        creds,
        tokenv3Body({
          merchantId,
          tokenId: tokenId as string,
          attributes: { transaction: { amount: '1000', currency: 'USD', invoice } },
        }),
      );
    const created = [await card('INV-A'), await card('INV-A'), await card('INV-B')];
    cardIds = created.map((response) => response.body.data.id);
    invoiceB = cardIds[2] as string;
    achId = (await createPayment(stack, creds, achBody({ merchantId }))).body.data.id;
    refundId = (await createPayment(stack, creds, refundBody(cardIds[0] as string, '300'))).body.data.id;
  });

  it('merchantId lists what id lists; both naming the same merchant too', async () => {
    const byId = await get(`/payments?id=${world.merchantId}`);
    const byMerchantId = await get(`/payments?merchantId=${world.merchantId}`);
    const byBoth = await get(`/payments?id=${world.merchantId}&merchantId=${world.merchantId}`);
    expect(byId.status).toBe(200);
    expect(byId.body.data.length).toBeGreaterThanOrEqual(5);
    for (const response of [byMerchantId, byBoth]) {
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual(byId.body.data);
      expect(response.body.meta.total).toBe(byId.body.meta.total);
    }
  });

  it('id and merchantId naming different merchants is a 400', async () => {
    const other = await createWorld(stack, { token: false });
    const response = await get(`/payments?id=${world.merchantId}&merchantId=${other.merchantId}`);
    expect(expectError(response, 400, 'invalid_field')).toMatchObject({ source: { parameter: 'merchantId' } });
  });

  it("no merchant at all lists the account's records; an unknown one by merchantId is a 400 naming it", async () => {
    const account = await get('/payments');
    expect(account.status).toBe(200);
    expect(account.body.data.map((row: { id: string }) => row.id)).toContain(achId);
    const unknown = await get('/payments?merchantId=mer_00000000000000000000000000');
    expect(expectError(unknown, 400, 'invalid_merchant_id')).toMatchObject({ source: { parameter: 'merchantId' } });
  });

  it('paymentType lists the records of that type, and meta.total counts them', async () => {
    const ids = async (query: string) => {
      const response = await get(`/payments?merchantId=${world.merchantId}&${query}`);
      expect(response.status).toBe(200);
      return { ids: response.body.data.map((row: { id: string }) => row.id), total: response.body.meta.total };
    };
    expect(await ids('paymentType=ACH')).toEqual({ ids: [achId], total: 1 });
    expect(await ids('paymentType=refund')).toEqual({ ids: [refundId], total: 1 });
    expect(await ids('paymentType=card')).toEqual({ ids: [...cardIds].reverse(), total: 3 });
    // A page of one still counts the whole filter.
    expect(await ids('paymentType=card&limit=1')).toEqual({ ids: [invoiceB], total: 3 });
    expect(await ids('paymentType=capture')).toEqual({ ids: [], total: 0 });
    const bogus = await get(`/payments?merchantId=${world.merchantId}&paymentType=tokenv3`);
    expect(expectError(bogus, 400, 'invalid_field')).toMatchObject({ source: { parameter: 'paymentType' } });
  });

  it('invoice matches exactly, with the other filters, and meta.total counts the matches', async () => {
    const list = async (query: string) => (await get(`/payments?id=${world.merchantId}&${query}`)).body;
    const b = await list('invoice=INV-B');
    expect(b.data.map((row: { id: string }) => row.id)).toEqual([invoiceB]);
    expect(b.data[0].attributes.transaction.invoice).toBe('INV-B');
    expect(b.meta.total).toBe(1);
    const stored = await stack.sql<{ count: number }[]>`
      select count(*)::int as count from payments where merchant_id = ${world.merchantId} and invoice = 'INV-A'`;
    const a = await list('invoice=INV-A&limit=1');
    expect(a.data).toHaveLength(1);
    expect(a.meta.total).toBe(stored[0]?.count);
    expect(a.meta.total).toBeGreaterThanOrEqual(2);
    expect((await list('invoice=INV')).meta.total).toBe(0);
    expect((await list('invoice=INV-A&paymentType=card')).meta.total).toBe(2);
    expect((await list('invoice=INV-ACH-1&paymentType=ACH')).data.map((row: { id: string }) => row.id)).toEqual([
      achId,
    ]);
  });
});
