import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import {
  achBody,
  cards,
  createCardToken,
  createPayment,
  refundBody,
  splitBody,
  tokenv3Body,
} from '../fixtures/payments';
import { copyRow } from '../fixtures/scans';
import { createWorld, type World } from '../fixtures/world';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * `GET /payments`'s filters (docs/api.md, List payments): the card's last four, the paying customer's email, amount
 * and creation ranges, alone, together, with the older filters and with cursors both ways, at a merchant and across
 * the account; their errors; and the total counted up to its bound. Every record is made through the API but the
 * thousand copies that pass the bound.
 */

let stack: TestStack;
let world: World<{ other: 'Other Filters Platform'; partners: ['Filters Partner'] }>;
let merchantId: string;
let partnerId: string;
/** The records, by name: each made after the one before, so newest first is the reverse of this order. */
const ids: Record<string, string> = {};
const createdAt: Record<string, string> = {};
let otherMerchantId: string;
let otherPaymentId: string;

const customer = async (as: Credentials, name: string, email: string) => {
  const response = await stack.call('POST', '/customers', {
    as,
    body: { data: { type: 'customers', attributes: { name, email } } },
  });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
};

beforeAll(async () => {
  stack = await createTestStack();
  world = await createWorld(stack, { other: 'Other Filters Platform', partners: ['Filters Partner'] });
  const { creds } = world;
  merchantId = world.merchantId;
  [partnerId] = world.partnerIds;
  const [ada, bob, nobody] = await Promise.all([
    customer(creds, 'Ada Lovelace', 'Ada.Lovelace@Example.com'),
    customer(creds, 'Bob Byte', 'bob@example.com'),
    customer(creds, 'No Payments', 'nobody@example.com'),
  ]);
  const [adaVisa, adaMastercard, bobVisa, anonymous] = await Promise.all([
    createCardToken(stack, creds, cards.visa, { customerId: ada }),
    createCardToken(stack, creds, cards.mastercard, { customerId: ada }),
    createCardToken(stack, creds, cards.visa2, { customerId: bob }),
    createCardToken(stack, creds, cards.visa2),
    createCardToken(stack, creds, cards.visa, { customerId: nobody }),
  ]);
  const pay = async (name: string, body: unknown) => {
    ids[name] = (await createPayment(stack, creds, body)).body.data.id;
  };
  await pay('ada1000', tokenv3Body({ merchantId, tokenId: adaVisa!, amount: '1000' }));
  await pay('bob2500', tokenv3Body({ merchantId, tokenId: bobVisa!, amount: '2500' }));
  await pay('anon5000', tokenv3Body({ merchantId, tokenId: anonymous!, amount: '5000' }));
  await pay('adaMc7500', tokenv3Body({ merchantId, tokenId: adaMastercard!, amount: '7500' }));
  await pay('ach2000', achBody({ merchantId, amount: '2000' }));
  // The partner's payment with Ada's Visa, of which the merchant takes a split: in the merchant's list as split
  // receiver, once in the account's.
  await pay(
    'split1000',
    splitBody({ merchantId: partnerId!, tokenId: adaVisa!, splitMerchantId: merchantId, splitAmount: '200' }),
  );
  await pay('partnerBob3000', tokenv3Body({ merchantId: partnerId!, tokenId: bobVisa!, amount: '3000' }));
  // A refund's record carries its payment's card, not its token.
  await pay('refund300', refundBody(ids.ada1000!, '300'));
  for (const [name, id] of Object.entries(ids)) {
    createdAt[name] = (await stack.call('GET', `/payments/${id}`, { as: creds })).body.data.attributes.createdAt;
  }

  // Another account: the same email, the same card, never in this account's lists.
  const other = world.other;
  otherMerchantId = await createMerchant(stack, other);
  const otherAda = await customer(other, 'Ada Elsewhere', 'ada.lovelace@example.com');
  const otherToken = await createCardToken(stack, other, cards.visa, { customerId: otherAda });
  otherPaymentId = (
    await createPayment(stack, other, tokenv3Body({ merchantId: otherMerchantId, tokenId: otherToken }))
  ).body.data.id;
}, 120_000);
afterAll(() => stack?.close());

const get = (path: string, as: Credentials = world.creds) => stack.call('GET', path, { as });
const idsOf = (response: ApiResponse): string[] => response.body.data.map((item: { id: string }) => item.id);
/** The records' ids, by name, newest first. */
const named = (...names: string[]) => names.map((name) => ids[name]);
const at = (name: string) => encodeURIComponent(createdAt[name]!);

/** A list's ids and total, asserting a 200 with an exact total. */
async function listed(query: string) {
  const response = await get(`/payments?${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.meta.totalCapped).toBeUndefined();
  return { ids: idsOf(response), total: response.body.meta.total as number };
}

/** Asserts a 400 with this code naming the query parameter, and nothing else wrong. */
function expectParameterError(response: ApiResponse, code: string, parameter: string) {
  expect(expectError(response, 400, code).source).toEqual({ parameter });
  expect(response.body.errors).toHaveLength(1);
}

describe('each filter alone, at a merchant (its own records and the splits it takes)', () => {
  const atMerchant = (query: string) => listed(`merchantId=${merchantId}&${query}`);

  it('last4: the records of cards with those last four, refunds included', async () => {
    expect(await atMerchant('last4=1111')).toEqual({ ids: named('refund300', 'split1000', 'ada1000'), total: 3 });
    expect(await atMerchant('last4=4242')).toEqual({ ids: named('anon5000', 'bob2500'), total: 2 });
    expect(await atMerchant('last4=4444')).toEqual({ ids: named('adaMc7500'), total: 1 });
    expect(await atMerchant('last4=0000')).toEqual({ ids: [], total: 0 });
  });

  it('customerEmail: what the customer’s tokens paid, in any case; a token without a customer never matches', async () => {
    const ada = named('split1000', 'adaMc7500', 'ada1000');
    expect(await atMerchant('customerEmail=ada.lovelace%40example.com')).toEqual({ ids: ada, total: 3 });
    expect(await atMerchant('customerEmail=ADA.LOVELACE%40EXAMPLE.COM')).toEqual({ ids: ada, total: 3 });
    expect(await atMerchant('customerEmail=bob%40example.com')).toEqual({ ids: named('bob2500'), total: 1 });
    // A customer whose token never paid, and an email no customer has.
    expect(await atMerchant('customerEmail=nobody%40example.com')).toEqual({ ids: [], total: 0 });
    expect(await atMerchant('customerEmail=ghost%40example.com')).toEqual({ ids: [], total: 0 });
  });

  it('amountGte and amountLte: cents, both bounds inclusive', async () => {
    expect(await atMerchant('amountGte=2500')).toEqual({ ids: named('adaMc7500', 'anon5000', 'bob2500'), total: 3 });
    expect(await atMerchant('amountLte=1000')).toEqual({
      ids: named('refund300', 'split1000', 'ada1000'),
      total: 3,
    });
    expect(await atMerchant('amountGte=2000&amountLte=2500')).toEqual({ ids: named('ach2000', 'bob2500'), total: 2 });
    expect(await atMerchant('amountGte=7500&amountLte=7500')).toEqual({ ids: named('adaMc7500'), total: 1 });
    expect(await atMerchant('amountGte=7501')).toEqual({ ids: [], total: 0 });
  });

  it('createdGte and createdLte: instants, both bounds inclusive', async () => {
    expect(await atMerchant(`createdGte=${at('bob2500')}&createdLte=${at('adaMc7500')}`)).toEqual({
      ids: named('adaMc7500', 'anon5000', 'bob2500'),
      total: 3,
    });
    expect(await atMerchant(`createdLte=${at('bob2500')}`)).toEqual({ ids: named('bob2500', 'ada1000'), total: 2 });
    expect(await atMerchant(`createdGte=${at('refund300')}`)).toEqual({ ids: named('refund300'), total: 1 });
    // The same instant in another offset.
    const local = new Date(createdAt.ach2000!).toISOString().replace('Z', '+00:00');
    expect(await atMerchant(`createdGte=${encodeURIComponent(local)}&createdLte=${encodeURIComponent(local)}`)).toEqual(
      {
        ids: named('ach2000'),
        total: 1,
      },
    );
  });
});

describe('filters together, and with the older ones', () => {
  const atMerchant = (query: string) => listed(`merchantId=${merchantId}&${query}`);

  it('every filter narrows the others', async () => {
    expect(await atMerchant('last4=1111&customerEmail=ada.lovelace%40example.com')).toEqual({
      ids: named('split1000', 'ada1000'),
      total: 2,
    });
    expect(await atMerchant('last4=4242&amountGte=3000')).toEqual({ ids: named('anon5000'), total: 1 });
    expect(
      await atMerchant(`customerEmail=ada.lovelace%40example.com&amountGte=1000&createdLte=${at('adaMc7500')}`),
    ).toEqual({ ids: named('adaMc7500', 'ada1000'), total: 2 });
    expect(await atMerchant('last4=1111&status=partial_refund')).toEqual({ ids: named('ada1000'), total: 1 });
    expect(await atMerchant('last4=1111&paymentType=refund&amountLte=300')).toEqual({
      ids: named('refund300'),
      total: 1,
    });
    expect(await atMerchant(`amountGte=1000&startDate=${at('bob2500')}&endDate=${at('ach2000')}`)).toEqual({
      ids: named('adaMc7500', 'anon5000', 'bob2500'),
      total: 3,
    });
    expect(await atMerchant('customerEmail=bob%40example.com&last4=1111')).toEqual({ ids: [], total: 0 });
  });

  it('id names the merchant as merchantId does', async () => {
    expect(await listed(`id=${merchantId}&last4=4242`)).toEqual({ ids: named('anon5000', 'bob2500'), total: 2 });
  });

  it("the partner's list holds its own records and the split it made", async () => {
    expect(await listed(`merchantId=${partnerId}&last4=1111`)).toEqual({ ids: named('split1000'), total: 1 });
    expect(await listed(`merchantId=${partnerId}&customerEmail=bob%40example.com`)).toEqual({
      ids: named('partnerBob3000'),
      total: 1,
    });
  });
});

describe("without a merchant: the account's records", () => {
  const everything = [
    'refund300',
    'partnerBob3000',
    'split1000',
    'ach2000',
    'adaMc7500',
    'anon5000',
    'bob2500',
    'ada1000',
  ];

  it('lists every merchant’s records once, newest first, and never another account’s', async () => {
    expect(await listed('')).toEqual({ ids: named(...everything), total: 8 });
    expect(await listed('id=&merchantId=')).toEqual({ ids: named(...everything), total: 8 });
    expect(idsOf(await get('/payments', world.other))).toEqual([otherPaymentId]);
  });

  it('takes every filter', async () => {
    expect(await listed('last4=4242')).toEqual({ ids: named('partnerBob3000', 'anon5000', 'bob2500'), total: 3 });
    expect(await listed('customerEmail=bob%40example.com')).toEqual({
      ids: named('partnerBob3000', 'bob2500'),
      total: 2,
    });
    // The other account's customer of the same email paid with the same card: not this account's.
    expect(await listed('customerEmail=ada.lovelace%40example.com&last4=1111')).toEqual({
      ids: named('split1000', 'ada1000'),
      total: 2,
    });
    expect(await listed('amountGte=3000&amountLte=5000')).toEqual({
      ids: named('partnerBob3000', 'anon5000'),
      total: 2,
    });
    expect(await listed(`createdGte=${at('split1000')}&status=pending&paymentType=card`)).toEqual({
      ids: named('partnerBob3000', 'split1000'),
      total: 2,
    });
    expect(await listed('invoice=INV-ACH-1')).toEqual({ ids: named('ach2000'), total: 1 });
  });

  it('pages by cursor both ways with the filters kept in links.next', async () => {
    const walked: string[] = [];
    let path: string | null = '/payments?last4=4242&limit=1';
    while (path) {
      const response: ApiResponse = await get(path);
      expect(response.status).toBe(200);
      expect(response.body.meta.total).toBe(3);
      walked.push(...idsOf(response));
      const next: string | null = response.body.links.next;
      if (next) expect(new URL(next).searchParams.get('last4')).toBe('4242');
      path = next && new URL(next).pathname + new URL(next).search;
    }
    expect(walked).toEqual(named('partnerBob3000', 'anon5000', 'bob2500'));
    const newer = await get(`/payments?last4=4242&limit=1&endingBefore=${ids.bob2500}`);
    expect(idsOf(newer)).toEqual(named('anon5000'));
    expect(newer.body.meta).toEqual({ total: 3, limit: 1, offset: 0, hasMore: true });
    const newest = await get(new URL(newer.body.links.next).pathname + new URL(newer.body.links.next).search);
    expect(idsOf(newest)).toEqual(named('partnerBob3000'));
    expect(newest.body.links.next).toBeNull();
  });

  it('400s a cursor of another account', async () => {
    expectParameterError(await get(`/payments?startingAfter=${otherPaymentId}`), 'invalid_cursor', 'startingAfter');
    expectParameterError(
      await get(`/payments?last4=1111&endingBefore=${otherPaymentId}`),
      'invalid_cursor',
      'endingBefore',
    );
  });
});

describe('the new filters by cursor at a merchant', () => {
  it('a customer’s records, both ways, from cursors that need not match', async () => {
    const base = `/payments?merchantId=${merchantId}&customerEmail=ada.lovelace%40example.com`;
    const first = await get(`${base}&limit=1`);
    expect(idsOf(first)).toEqual(named('split1000'));
    expect(first.body.meta).toEqual({ total: 3, limit: 1, offset: 0, hasMore: true });
    const second = await get(`${base}&limit=1&startingAfter=${ids.split1000}`);
    expect(idsOf(second)).toEqual(named('adaMc7500'));
    // From a record that is not Ada's (the ACH debit): the page goes on from its place.
    expect(idsOf(await get(`${base}&startingAfter=${ids.ach2000}`))).toEqual(named('adaMc7500', 'ada1000'));
    const before = await get(`${base}&limit=2&endingBefore=${ids.ada1000}`);
    expect(idsOf(before)).toEqual(named('split1000', 'adaMc7500'));
    expect(before.body.meta).toEqual({ total: 3, limit: 2, offset: 0, hasMore: false });
    expect(idsOf(await get(`${base}&endingBefore=${ids.ach2000}`))).toEqual(named('split1000'));
    const skipped = await get(`${base}&limit=1&offset=1&startingAfter=${ids.refund300}`);
    expect(idsOf(skipped)).toEqual(named('adaMc7500'));
  });

  it('a card and an amount range, both ways', async () => {
    const base = `/payments?merchantId=${merchantId}&last4=1111&amountLte=1000`;
    expect(idsOf(await get(`${base}&startingAfter=${ids.refund300}`))).toEqual(named('split1000', 'ada1000'));
    expect(idsOf(await get(`${base}&endingBefore=${ids.ada1000}&limit=1`))).toEqual(named('split1000'));
    const range = `/payments?merchantId=${merchantId}&createdGte=${at('ada1000')}&createdLte=${at('ach2000')}`;
    expect(idsOf(await get(`${range}&limit=2&startingAfter=${ids.adaMc7500}`))).toEqual(named('anon5000', 'bob2500'));
    expect(idsOf(await get(`${range}&endingBefore=${ids.anon5000}`))).toEqual(named('ach2000', 'adaMc7500'));
  });
});

describe('bad values and other merchants', () => {
  const atMerchant = (query: string) => get(`/payments?merchantId=${merchantId}&${query}`);

  it.each([
    ['last4=123', 'last4'],
    ['last4=12345', 'last4'],
    ['last4=abcd', 'last4'],
    ['customerEmail=ada', 'customerEmail'],
    ['customerEmail=ada%40', 'customerEmail'],
    ['amountGte=-1', 'amountGte'],
    ['amountGte=10.50', 'amountGte'],
    ['amountLte=1e3', 'amountLte'],
    ['amountLte=99999999999999999999', 'amountLte'],
    ['createdGte=2026-11-29', 'createdGte'],
    ['createdGte=yesterday', 'createdGte'],
    ['createdLte=2026-11-29T10:00:00', 'createdLte'],
    ['createdLte=2026-13-01T00:00:00Z', 'createdLte'],
    ['createdGte=0000-01-01T00:00:00Z', 'createdGte'],
    ['createdLte=0001-01-01T00:00:00%2B01:00', 'createdLte'],
  ])('%s: 400 invalid_field naming the parameter', async (query, parameter) => {
    expectParameterError(await atMerchant(query), 'invalid_field', parameter);
    expectParameterError(await get(`/payments?${query}`), 'invalid_field', parameter);
  });

  it('a range that ends before it starts names its second bound', async () => {
    expectParameterError(await atMerchant('amountGte=2001&amountLte=2000'), 'invalid_field', 'amountLte');
    expectParameterError(
      await get('/payments?createdGte=2026-11-29T10:00:00Z&createdLte=2026-11-29T09:59:59.999Z'),
      'invalid_date_range',
      'createdLte',
    );
    // A range of one value is no mistake.
    expect((await atMerchant('amountGte=2000&amountLte=2000')).status).toBe(200);
  });

  it('a malformed or unknown merchant is a 400, another account’s a 403, with the new filters too', async () => {
    expectParameterError(await get('/payments?merchantId=nope&last4=1111'), 'invalid_merchant_id', 'merchantId');
    expectParameterError(
      await get('/payments?id=mer_0000000000aaaaaaaaaaaaaaaa&amountGte=1'),
      'invalid_merchant_id',
      'id',
    );
    const forbidden = await get(`/payments?merchantId=${otherMerchantId}&customerEmail=ada%40example.com`);
    expect(expectError(forbidden, 403, 'merchant_forbidden').source).toEqual({ parameter: 'merchantId' });
  });

  it('a guessed name says which filter it is', async () => {
    const email = await get('/payments?email=ada%40example.com');
    expect(expectError(email, 400, 'unknown_parameter').detail).toContain('customerEmail');
    const amount = await get('/payments?amount=1000');
    expect(expectError(amount, 400, 'unknown_parameter').detail).toContain('amountGte and amountLte');
  });
});

describe('a total past its bound', () => {
  beforeAll(async () => {
    // 150 older copies of the anonymous 4242 payment (two days back, a second apart).
    await copyRow(
      stack.sql,
      { table: 'payments', id: ids.anon5000! },
      {
        prefix: 'pay_copy',
        count: 150,
        set: { request_id: null },
        perCopy: { created_at: "now() - interval '2 days' - i * interval '1 second'" },
      },
    );
    await stack.sql`analyze payments`;
  });

  it('is counted to 100 and says more match, and hasMore follows', async () => {
    const capped = await get(`/payments?merchantId=${merchantId}&last4=4242&limit=10`);
    expect(capped.body.meta).toEqual({ total: 100, totalCapped: true, limit: 10, offset: 0, hasMore: true });
    expect(idsOf(capped)).toEqual([
      ...named('anon5000', 'bob2500'),
      ...Array.from({ length: 8 }, (_, i) => `pay_copy${i + 1}`),
    ]);
    // The account's list, unfiltered, and a customer's count to their bound as well.
    expect((await get('/payments?limit=1')).body.meta).toMatchObject({ total: 100, totalCapped: true });
    await stack.sql`update payments set token_id = (select token_id from payments where id = ${ids.bob2500!})
      where id like 'pay_copy%'`;
    const bob = await get('/payments?customerEmail=bob%40example.com&limit=5');
    expect(bob.body.meta).toEqual({ total: 100, totalCapped: true, limit: 5, offset: 0, hasMore: true });
    expect(idsOf(bob)).toEqual([...named('partnerBob3000', 'bob2500'), 'pay_copy1', 'pay_copy2', 'pay_copy3']);
  });

  it("is counted to the page's end when the page goes past the bound", async () => {
    const deep = await get(`/payments?merchantId=${merchantId}&last4=4242&limit=100&offset=50`);
    expect(deep.body.meta).toEqual({ total: 150, totalCapped: true, limit: 100, offset: 50, hasMore: true });
    expect(deep.body.data).toHaveLength(100);
    // Past every match, the total is exact again: 150 copies and the two payments.
    const last = await get(`/payments?merchantId=${merchantId}&last4=4242&limit=100&offset=100`);
    expect(last.body.meta).toEqual({ total: 152, limit: 100, offset: 100, hasMore: false });
    expect(last.body.data).toHaveLength(52);
    expect(last.body.links.next).toBeNull();
  });

  it('a merchant’s unfiltered or status total stays its kept count, exact', async () => {
    const all = await get(`/payments?merchantId=${merchantId}&limit=1`);
    expect(all.body.meta).toEqual({ total: 157, limit: 1, offset: 0, hasMore: true });
  });
});
