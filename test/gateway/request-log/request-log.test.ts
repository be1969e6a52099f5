import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayment, tokenv3Body } from '../../fixtures/payments';
import { createWorld, type World } from '../../fixtures/world';
import { type ApiResponse, createTestStack, expectError, type TestStack } from '../../harness';

/**
 * The request log through the API: what each kind of request leaves in it (a payment, a gateway route of its own,
 * a refused call, a request id the client chose), how `GET /requests` filters and pages it and refuses bad filters,
 * and that an account never sees another's requests.
 */
let stack: TestStack;
let world: World<{ other: 'Other Platform' }>;

beforeAll(async () => {
  stack = await createTestStack({ requestLog: true });
  world = await createWorld(stack, { other: 'Other Platform' });
});
afterAll(() => stack?.close());

const get = (path: string, as = world.creds) => stack.call('GET', path, { as });

/** What GET /requests answers once every request made so far is written. */
async function requests(query = '', as = world.creds): Promise<ApiResponse> {
  await stack.requestLog?.flush();
  const response = await get(`/requests${query}`, as);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response;
}

type Item = { id: string; attributes: Record<string, unknown> };
const byRequestId = async (requestId: string): Promise<Item> => {
  const { body } = await requests(`?requestId=${encodeURIComponent(requestId)}`);
  expect(body.data).toHaveLength(1);
  return body.data[0];
};

describe('what a request leaves in the log', () => {
  it('a payment: method, path, status, its request id as the id, the idempotency key, the duration, the bodies', async () => {
    const key = randomUUID();
    const created = await createPayment(
      stack,
      world.creds,
      tokenv3Body({ merchantId: world.merchantId, tokenId: world.tokenId, requestId: key }),
    );
    const requestId = created.headers.get('x-request-id') as string;
    const item = await byRequestId(requestId);
    expect(item.id).toBe(requestId);
    expect(item.attributes).toMatchObject({
      method: 'POST',
      path: '/payments',
      status: 201,
      requestId,
      idempotencyKey: key,
    });
    expect(item.attributes.durationMs).toEqual(expect.any(Number));
    expect(Date.now() - Date.parse(item.attributes.createdAt as string)).toBeLessThan(60_000);
    // A list item has no bodies; the request itself has both, as JSON text.
    expect(item.attributes).not.toHaveProperty('requestBody');
    const one = await get(`/requests/${requestId}`);
    expect(one.status).toBe(200);
    expect(one.body.links.self).toMatch(new RegExp(`/requests/${requestId}$`));
    const attributes = one.body.data.attributes;
    expect(JSON.parse(attributes.requestBody).data.attributes.transaction).toEqual({
      amount: '1000',
      currency: 'USD',
      invoice: 'INV-1001',
    });
    expect(JSON.parse(attributes.responseBody).data.id).toBe(created.body.data.id);
    expect(attributes).toMatchObject({ requestBodyTruncated: false, responseBodyTruncated: false });
  });

  it('the Idempotency-Key header, a query string, and a refused call with its error', async () => {
    const key = randomUUID();
    const refused = await stack.call('POST', '/payments', {
      as: world.creds,
      headers: { 'idempotency-key': key },
      body: tokenv3Body({ merchantId: world.merchantId, tokenId: world.tokenId, amount: '-5' }),
    });
    expect(refused.status).toBe(400);
    const item = await byRequestId(refused.headers.get('x-request-id') as string);
    expect(item.attributes).toMatchObject({ method: 'POST', path: '/payments', status: 400, idempotencyKey: key });
    const one = await get(`/requests/${item.id}`);
    expect(JSON.parse(one.body.data.attributes.responseBody).errors[0].code).toBe(refused.body.errors[0].code);

    const listed = await get(`/payments?merchantId=${world.merchantId}&limit=2`);
    const read = await byRequestId(listed.headers.get('x-request-id') as string);
    expect(read.attributes).toMatchObject({
      method: 'GET',
      path: `/payments?merchantId=${world.merchantId}&limit=2`,
      status: 200,
      idempotencyKey: null,
    });
  });

  it("the gateway's own routes: an app token, the sandbox clock", async () => {
    const token = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': world.creds.apiKey },
      body: { data: { type: 'auth', attributes: { appKey: world.creds.appKey } } },
    });
    expect(token.status).toBe(201);
    const item = await byRequestId(token.headers.get('x-request-id') as string);
    expect(item.attributes).toMatchObject({ method: 'POST', path: '/auth/token', status: 201 });
    const one = await get(`/requests/${item.id}`);
    // The app key sent and the token answered are both redacted.
    expect(JSON.parse(one.body.data.attributes.requestBody).data.attributes.appKey).toBe('[redacted]');
    expect(JSON.parse(one.body.data.attributes.responseBody).data.attributes.appToken).toBe('[redacted]');
    expect(one.body.data.attributes.responseBody).not.toContain(world.creds.apiKey);

    const clock = await get('/sandbox/clock');
    expect((await byRequestId(clock.headers.get('x-request-id') as string)).attributes).toMatchObject({
      method: 'GET',
      path: '/sandbox/clock',
      status: 200,
    });
  });

  it('a request id the client chose: kept as requestId, the row gets an id of its own', async () => {
    const chosen = `client-${randomUUID()}`;
    const response = await stack.call('GET', '/merchants', { as: world.creds, headers: { 'x-request-id': chosen } });
    expect(response.headers.get('x-request-id')).toBe(chosen);
    const item = await byRequestId(chosen);
    expect(item.attributes.requestId).toBe(chosen);
    expect(item.id).toMatch(/^req_[0-9a-z]{26}$/);
    expect((await get(`/requests/${item.id}`)).status).toBe(200);
  });

  it('what no account made is not recorded: failed authentication, health, docs, admin calls', async () => {
    const before = (await requests()).body.meta.total;
    expect((await stack.call('GET', '/payments', { headers: { 'x-api-key': world.creds.apiKey } })).status).toBe(401);
    await stack.call('GET', '/healthz');
    await stack.call('GET', '/openapi.json');
    await stack.call('GET', '/admin/ach-files', { headers: stack.admin });
    // Only the list call itself is new.
    expect((await requests()).body.meta.total).toBe(before + 1);
  });
});

describe('GET /requests', () => {
  it('is newest first, with cursor pages both ways and kept totals', async () => {
    for (let i = 0; i < 3; i++) await get(`/merchants?limit=${i + 1}`);
    const first = await requests('?limit=2');
    expect(first.body.data).toHaveLength(2);
    expect(first.body.meta).toMatchObject({ limit: 2, offset: 0, hasMore: true });
    const [a, b] = first.body.data as Item[];
    expect(Date.parse(a!.attributes.createdAt as string)).toBeGreaterThanOrEqual(
      Date.parse(b!.attributes.createdAt as string),
    );
    const next = await stack.call(
      'GET',
      new URL(first.body.links.next).pathname + new URL(first.body.links.next).search,
      {
        as: world.creds,
      },
    );
    expect(next.status).toBe(200);
    expect(next.body.data[0].id).not.toBe(b!.id);
    const back = await get(`/requests?endingBefore=${next.body.data[0].id}&limit=1`);
    expect(back.body.data.map((item: Item) => item.id)).toEqual([b!.id]);
    // The total is every recorded request of the account, the list calls included.
    expect(first.body.meta.total).toBeGreaterThan(5);
  });

  it('filters by status (a code or a class), method, path prefix and request id; totals follow', async () => {
    const missing = await get('/payments/pay_00000000000000000000000000');
    expect(missing.status).toBe(404);
    const notFound = await requests('?status=404');
    expect(notFound.body.data.map((item: Item) => item.attributes.status)).toEqual(notFound.body.data.map(() => 404));
    expect(
      notFound.body.data.some((item: Item) => item.attributes.requestId === missing.headers.get('x-request-id')),
    ).toBe(true);
    expect(notFound.body.meta.total).toBe(notFound.body.data.length);

    const clientErrors = await requests('?status=4xx&limit=100');
    const statuses = clientErrors.body.data.map((item: Item) => item.attributes.status as number);
    expect(statuses.every((status: number) => status >= 400 && status < 500)).toBe(true);
    expect(statuses).toEqual(expect.arrayContaining([400, 404]));
    expect(clientErrors.body.meta.total).toBe(statuses.length);

    const posts = await requests('?method=POST&status=2xx&limit=100');
    expect(posts.body.data.every((item: Item) => item.attributes.method === 'POST')).toBe(true);
    expect(posts.body.meta.total).toBe(posts.body.data.length);

    const merchants = await requests('?path=/merchants%3Flimit%3D&limit=100');
    expect(merchants.body.data.map((item: Item) => item.attributes.path).sort()).toEqual([
      '/merchants?limit=1',
      '/merchants?limit=2',
      '/merchants?limit=3',
    ]);
    expect(merchants.body.meta.total).toBe(3);
    // A filter's cursor pages stay within the filter.
    const page = await requests('?path=/merchants%3Flimit%3D&limit=2');
    const rest = await get(`/requests?path=/merchants%3Flimit%3D&limit=2&startingAfter=${page.body.data[1].id}`);
    expect(rest.body.data.map((item: Item) => item.attributes.path)).toEqual(['/merchants?limit=1']);
    expect(rest.body.meta).toMatchObject({ total: 3, hasMore: false });

    const none = await requests(`?requestId=req_${'0'.repeat(26)}`);
    expect(none.body).toMatchObject({ data: [], meta: { total: 0, hasMore: false } });
    // Empty filters are no filters.
    expect((await requests('?status=&path=&requestId=&method=')).body.meta.total).toBeGreaterThan(0);
  });

  it.each([
    ['status=600', 'status', /status must be a status code \(404\) or a class of them \(4xx\)/],
    ['status=4x', 'status', /status must be/],
    ['status=abc', 'status', /status must be/],
    ['path=payments', 'path', /path must start with \//],
    [`path=/${'a'.repeat(1024)}`, 'path', /path must be at most 1024 characters/],
    ['requestId=has%20space', 'requestId', /requestId must be 1 to 128/],
    ['method=FETCH', 'method', /method must be one of "GET", "POST", "PUT", "PATCH", "DELETE"/],
    ['startingAfter=req_unknown', 'startingAfter', /startingAfter: req_unknown is not an item of this list/],
  ])('?%s: 400 naming the parameter', async (query, parameter, detail) => {
    const response = await get(`/requests?${query}`);
    const error = expectError(response, 400, parameter === 'startingAfter' ? 'invalid_cursor' : 'invalid_field');
    expect(error).toMatchObject({ source: { parameter } });
    expect(error.detail).toMatch(detail);
  });

  it('refuses a parameter it does not take, naming the right one', async () => {
    const error = expectError(await get('/requests?statusCode=404'), 400, 'unknown_parameter');
    expect(error).toMatchObject({ source: { parameter: 'statusCode' } });
    expect(error.detail).toMatch(/the filter is status.*it takes status, method, path, requestId, limit/);
  });
});

describe("another account's requests", () => {
  it('are never listed, are 404 by id, and are no cursor', async () => {
    const theirs = await get('/merchants?limit=7', world.other);
    const theirId = theirs.headers.get('x-request-id') as string;
    await stack.requestLog?.flush();
    expect((await requests(`?requestId=${theirId}`)).body.meta.total).toBe(0);
    expect((await requests('?path=/merchants%3Flimit%3D7')).body.data).toEqual([]);
    expectError(await get(`/requests/${theirId}`), 404, 'request_not_found');
    expectError(await get(`/requests?startingAfter=${theirId}`), 400, 'invalid_cursor');
    // Their own: listed, and found by id.
    expect((await requests(`?requestId=${theirId}`, world.other)).body.data[0].id).toBe(theirId);
    expect((await get(`/requests/${theirId}`, world.other)).status).toBe(200);
    // An id that is no request's, or no id at all: 404 too.
    expectError(await get(`/requests/req_${'0'.repeat(26)}`), 404, 'request_not_found');
    expectError(await get('/requests/not-an-id'), 404, 'request_not_found');
  });
});
