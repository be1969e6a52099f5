import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let acme: Credentials;
let globex: Credentials;
let acmeMerchant: string;
let globexMerchant: string;

beforeAll(async () => {
  stack = await createTestStack();
  acme = await stack.createAccount('Acme Platform');
  globex = await stack.createAccount('Globex Platform');
  acmeMerchant = await createMerchant(stack, acme);
  globexMerchant = await createMerchant(stack, globex);
});
afterAll(() => stack.close());

const base = 'http://localhost:8080';
const pointer = (path: string) => `/data/attributes/${path}`;
const customerBody = (attributes: Record<string, unknown>) => ({ data: { type: 'customers', attributes } });
const createCustomer = (as: Credentials, attributes: Record<string, unknown>) =>
  stack.call('POST', '/customers', { as, body: customerBody(attributes) });
const idsOf = (body: { data: { id: string }[] }) => body.data.map((customer) => customer.id);

describe('POST /customers', () => {
  it('creates a customer with every attribute', async () => {
    const res = await createCustomer(acme, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+1 (415) 555-0100',
      externalId: 'user-42',
      merchantId: acmeMerchant,
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    expect(id).toMatch(/^cus_[0-9a-z]{26}$/);
    expect(res.body).toEqual({
      links: { self: `${base}/customers/${id}` },
      data: {
        type: 'customers',
        id,
        attributes: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          phone: '+1 (415) 555-0100',
          externalId: 'user-42',
          merchantId: acmeMerchant,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          updatedAt: res.body.data.attributes.createdAt,
        },
      },
    });
    const [row] = await stack.sql`select account_id, merchant_id, external_id from customers where id = ${id}`;
    expect(row).toEqual({ account_id: acme.accountId, merchant_id: acmeMerchant, external_id: 'user-42' });
  });

  it('needs only a name; the rest answer null', async () => {
    const res = await createCustomer(acme, { name: '  Grace Hopper ' });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      name: 'Grace Hopper',
      email: null,
      phone: null,
      externalId: null,
      merchantId: null,
    });
  });

  it('400 with pointers for a missing name, a bad email and a bad phone, all at once', async () => {
    const res = await createCustomer(acme, { email: 'not-an-email', phone: 'call me' });
    expectError(res, 400, 'missing_field', pointer('name'));
    expectError(res, 400, 'invalid_field', pointer('email'));
    expectError(res, 400, 'invalid_field', pointer('phone'));
    expect(res.body.errors).toHaveLength(3);
  });

  it('400 for a blank name, a too short phone, and non-string values', async () => {
    expectError(await createCustomer(acme, { name: '   ' }), 400, 'invalid_field', pointer('name'));
    expectError(await createCustomer(acme, { name: 'A', phone: '12345' }), 400, 'invalid_field', pointer('phone'));
    expectError(await createCustomer(acme, { name: 'A', externalId: 42 }), 400, 'invalid_field', pointer('externalId'));
    expectError(await createCustomer(acme, { name: 'A', email: 'a@b' }), 400, 'invalid_field', pointer('email'));
  });

  it('400 for a wrong data.type', async () => {
    const res = await stack.call('POST', '/customers', {
      as: acme,
      body: { data: { type: 'customer', attributes: { name: 'A' } } },
    });
    expectError(res, 400, 'invalid_field', '/data/type');
  });

  it('400 merchant_not_found for an unknown merchant, 403 for another account’s', async () => {
    expectError(
      await createCustomer(acme, { name: 'A', merchantId: 'mer_0000000000000000000000000a' }),
      400,
      'merchant_not_found',
      pointer('merchantId'),
    );
    expectError(
      await createCustomer(acme, { name: 'A', merchantId: globexMerchant }),
      403,
      'merchant_forbidden',
      pointer('merchantId'),
    );
  });

  it('allows the same externalId twice (one per merchant, for instance)', async () => {
    expect((await createCustomer(acme, { name: 'A', externalId: 'dup-1' })).status).toBe(201);
    expect((await createCustomer(acme, { name: 'A', externalId: 'dup-1', merchantId: acmeMerchant })).status).toBe(201);
  });
});

describe('GET /customers/{id}', () => {
  it('returns the customer as created', async () => {
    const created = await createCustomer(acme, { name: 'Alan Turing', email: 'alan@example.com' });
    const res = await stack.call('GET', `/customers/${created.body.data.id}`, { as: acme });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
  });

  it('404 customer_not_found for an unknown or malformed id', async () => {
    expectError(
      await stack.call('GET', '/customers/cus_0000000000000000000000000a', { as: acme }),
      404,
      'customer_not_found',
    );
    expectError(await stack.call('GET', '/customers/whoever', { as: acme }), 404, 'customer_not_found');
  });

  it('403 for another account’s customer', async () => {
    const theirs = await createCustomer(globex, { name: 'Hidden' });
    expectError(await stack.call('GET', `/customers/${theirs.body.data.id}`, { as: acme }), 403, 'customer_forbidden');
  });
});

describe('GET /customers', () => {
  let lister: Credentials;
  let merchantA: string;
  let merchantB: string;
  const ids: string[] = [];

  beforeAll(async () => {
    lister = await stack.createAccount('Lister');
    merchantA = await createMerchant(stack, lister);
    merchantB = await createMerchant(stack, lister);
    const specs = [
      { externalId: 'ext-1', merchantId: merchantA },
      { externalId: 'ext-2', merchantId: merchantB },
      { externalId: 'ext-1', merchantId: merchantB },
      { merchantId: merchantA },
      {},
    ];
    for (const [index, spec] of specs.entries()) {
      const res = await createCustomer(lister, { name: `Customer ${index}`, ...spec });
      ids.push(res.body.data.id);
    }
    await createCustomer(globex, { name: 'Elsewhere', externalId: 'ext-1' });
  });

  it('lists the account’s customers newest first', async () => {
    const res = await stack.call('GET', '/customers', { as: lister });
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([...ids].reverse());
    expect(res.body.meta).toEqual({ total: 5, limit: 25, offset: 0, hasMore: false });
    expect(res.body.links).toEqual({ self: `${base}/customers`, next: null });
  });

  it('pages with limit and offset', async () => {
    const first = await stack.call('GET', '/customers?limit=2&offset=1', { as: lister });
    expect(idsOf(first.body)).toEqual([ids[3], ids[2]]);
    expect(first.body.meta).toEqual({ total: 5, limit: 2, offset: 1, hasMore: true });
    expect(first.body.links.next).toBe(`${base}/customers?limit=2&startingAfter=${ids[2]}`);
    const beyond = await stack.call('GET', '/customers?offset=10', { as: lister });
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta).toEqual({ total: 5, limit: 25, offset: 10, hasMore: false });
  });

  it('filters by externalId and merchantId, alone or together', async () => {
    const byExternal = await stack.call('GET', '/customers?externalId=ext-1', { as: lister });
    expect(idsOf(byExternal.body)).toEqual([ids[2], ids[0]]);
    const byMerchant = await stack.call('GET', `/customers?merchantId=${merchantA}`, { as: lister });
    expect(idsOf(byMerchant.body)).toEqual([ids[3], ids[0]]);
    const both = await stack.call('GET', `/customers?externalId=ext-1&merchantId=${merchantB}`, { as: lister });
    expect(idsOf(both.body)).toEqual([ids[2]]);
    expect(both.body.meta.total).toBe(1);
    const none = await stack.call('GET', '/customers?externalId=nobody', { as: lister });
    expect(none.body).toMatchObject({ data: [], meta: { total: 0, hasMore: false } });
  });

  it('400 for an unknown merchant filter, 403 for another account’s', async () => {
    const unknown = await stack.call('GET', '/customers?merchantId=mer_0000000000000000000000000a', { as: lister });
    expectError(unknown, 400, 'merchant_not_found');
    expect(unknown.body.errors[0].source).toEqual({ parameter: 'merchantId' });
    expectError(
      await stack.call('GET', `/customers?merchantId=${globexMerchant}`, { as: lister }),
      403,
      'merchant_forbidden',
    );
  });

  it('400 for pagination out of range', async () => {
    for (const query of ['limit=0', 'limit=101', 'offset=-3', 'limit=ten']) {
      expectError(await stack.call('GET', `/customers?${query}`, { as: lister }), 400, 'invalid_field');
    }
  });
});
