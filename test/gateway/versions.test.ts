import { closeServer, listen } from '@pps/shared/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardToken, createPayment, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * API versions (docs/api.md, Versions): `GET /versions`; each account's pin, and the `PPS-Version` header over it
 * both ways; an unknown version refused before anything; every answer naming its version; and each change module
 * of 2026-11-29 (`links.next` by cursor, unknown list parameters refused) as a 2026-11-21 client sees it.
 */
let stack: TestStack;
let pinnedNew: Credentials;
let pinnedOld: Credentials;
/** Each account's merchant and card token, for bodies. */
const worlds = new Map<Credentials, { merchantId: string; tokenId: string }>();

beforeAll(async () => {
  // No cached accounts: the pin set below is read at the next request.
  stack = await createTestStack({ env: { AUTH_CACHE_TTL_MS: '0' } });
  const [fresh, old] = await Promise.all([
    createWorld(stack, { account: 'Versions new' }),
    createWorld(stack, { account: 'Versions old' }),
  ]);
  pinnedNew = fresh.creds;
  pinnedOld = old.creds;
  worlds.set(pinnedNew, { merchantId: fresh.merchantId, tokenId: fresh.tokenId });
  worlds.set(pinnedOld, { merchantId: old.merchantId, tokenId: old.tokenId });
  await stack.sql`update accounts set api_version = '2026-11-21' where id = ${pinnedOld.accountId}`;
  for (const world of [fresh, old]) {
    for (let i = 0; i < 3; i++) {
      await createPayment(stack, world.creds, tokenv3Body({ merchantId: world.merchantId, tokenId: world.tokenId }));
    }
  }
});
afterAll(() => stack?.close());

const list = (as: Credentials, query: string, version?: string) =>
  stack.call('GET', `/payments?${query}`, { as, headers: version ? { 'PPS-Version': version } : {} });

describe('GET /versions', () => {
  it('lists every version oldest first, the newest marked, each with its changes', async () => {
    const response = await stack.call('GET', '/versions');
    expect(response.status).toBe(200);
    expect(response.headers.get('pps-version')).toBe('2026-11-29');
    const versions = response.body.data as {
      id: string;
      attributes: { newest: boolean; changes: { name: string }[] };
    }[];
    expect(versions.map((version) => [version.id, version.attributes.newest])).toEqual([
      ['2026-11-21', false],
      ['2026-11-29', true],
    ]);
    expect(versions[0]?.attributes.changes).toEqual([]);
    expect(versions[1]?.attributes.changes.map((change) => change.name)).toEqual([
      'list-links-next-by-cursor',
      'unknown-list-parameters-refused',
      'content-type-required',
      'invalid-utf8-refused',
      'unknown-fields-refused',
      'payment-requires-action',
    ]);
  });
});

describe('the version of a request', () => {
  it('an unknown version is a 400 naming the known ones, before anything is done', async () => {
    const before = await stack.sql`select count(*)::int as n from payments`;
    for (const version of ['2026-01-01', 'latest', '']) {
      const response = await stack.call('POST', '/payments', {
        as: pinnedNew,
        headers: { 'PPS-Version': version },
        body: { data: {} },
      });
      const error = expectError(response, 400, 'invalid_version');
      expect(error.detail).toContain('2026-11-21, 2026-11-29');
      expect((error as { source?: { parameter?: string } }).source?.parameter).toBe('PPS-Version');
    }
    expect(await stack.sql`select count(*)::int as n from payments`).toEqual(before);
  });

  it("answers in the account's pin, and says so", async () => {
    const fresh = await list(pinnedNew, 'limit=1');
    expect(fresh.headers.get('pps-version')).toBe('2026-11-29');
    const old = await list(pinnedOld, 'limit=1');
    expect(old.headers.get('pps-version')).toBe('2026-11-21');
  });

  it('the header overrides the pin, both ways', async () => {
    expect((await list(pinnedOld, 'limit=1', '2026-11-29')).headers.get('pps-version')).toBe('2026-11-29');
    expect((await list(pinnedNew, 'limit=1', '2026-11-21')).headers.get('pps-version')).toBe('2026-11-21');
  });
});

describe('2026-11-29: unknown list parameters refused (ignored before)', () => {
  it('refuses one in 2026-11-29, by pin or by header', async () => {
    expectError(await list(pinnedNew, 'limit=1&colour=red'), 400, 'unknown_parameter');
    expectError(await list(pinnedOld, 'limit=1&colour=red', '2026-11-29'), 400, 'unknown_parameter');
  });

  it('ignores one in 2026-11-21, by pin or by header, and keeps the ones the list takes', async () => {
    for (const response of [
      await list(pinnedOld, 'limit=1&colour=red'),
      await list(pinnedNew, 'limit=1&colour=red', '2026-11-21'),
    ]) {
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(1);
      expect(response.body.meta.limit).toBe(1);
    }
  });
});

describe('2026-11-29: links.next by cursor (by offset before)', () => {
  it('continues by cursor in 2026-11-29', async () => {
    const page = await list(pinnedNew, 'limit=1');
    const next = new URL(page.body.links.next);
    expect(next.searchParams.get('startingAfter')).toBe(page.body.data[0].id);
    expect(next.searchParams.has('offset')).toBe(false);
  });

  it('continues by offset in 2026-11-21, and the next page says where it is', async () => {
    for (const [as, version] of [
      [pinnedOld, undefined],
      [pinnedNew, '2026-11-21'],
    ] as const) {
      const first = await list(as, 'limit=1', version);
      const next = new URL(first.body.links.next);
      expect(next.searchParams.has('startingAfter')).toBe(false);
      expect(next.searchParams.get('offset')).toBe('1');
      const second = await list(as, next.search.slice(1), version);
      expect(second.body.meta.offset).toBe(1);
      expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
      expect(new URL(second.body.links.next).searchParams.get('offset')).toBe('2');
    }
  });
});

describe("an account's pin, set by the operator", () => {
  it('is shown by the admin API and moved by it; the next request is answered in the new pin', async () => {
    const creds = await stack.createAccount('Versions repinned');
    const pin = (apiVersion: string) =>
      stack.call('PUT', `/admin/accounts/${creds.accountId}`, {
        headers: stack.admin,
        body: { data: { type: 'accounts', attributes: { apiVersion } } },
      });
    const moved = await pin('2026-11-21');
    expect(moved.status).toBe(200);
    expect(moved.body.data.attributes).toMatchObject({ status: 'active', apiVersion: '2026-11-21' });
    expect((await list(creds, 'limit=1')).headers.get('pps-version')).toBe('2026-11-21');
    expectError(await pin('2026-01-01'), 400, 'invalid_field', '/data/attributes/apiVersion');
    const back = await pin('2026-11-29');
    expect(back.body.data.attributes.apiVersion).toBe('2026-11-29');
    expect((await list(creds, 'limit=1')).headers.get('pps-version')).toBe('2026-11-29');
  });

  it('a new account is pinned to the newest', async () => {
    const created = await stack.call('POST', '/admin/accounts', {
      headers: stack.admin,
      body: { data: { type: 'accounts', attributes: { name: 'Versions newest' } } },
    });
    expect(created.body.data.attributes.apiVersion).toBe('2026-11-29');
  });
});

/** A payment body of `as`'s merchant and token, with `attributes` added (or replaced). */
const paymentBody = (as: Credentials, attributes: Record<string, unknown> = {}) =>
  tokenv3Body({ ...(worlds.get(as) as { merchantId: string; tokenId: string }), attributes });
const paymentCount = async () => (await stack.sql`select count(*)::int as n from payments`)[0]?.n as number;
const pay = (as: Credentials, body: unknown, version?: string) =>
  stack.call('POST', '/payments', { as, body, headers: version ? { 'PPS-Version': version } : {} });
/** A POST of raw bytes, with the headers given and no others (no Content-Type unless given). */
const payRaw = (as: Credentials, bytes: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) =>
  stack.call('POST', '/payments', { as, raw: bytes, headers });

describe('2026-11-29: unknown body members refused (ignored before)', () => {
  const withUnknown = (as: Credentials) => {
    const body = paymentBody(as, { colour: 'red' }) as { data: Record<string, unknown> & { attributes: any } };
    body.data.attributes.transaction.tip = '100';
    body.data.extra = true;
    return body;
  };

  it('refuses each at its pointer in 2026-11-29, and creates nothing', async () => {
    const before = await paymentCount();
    for (const response of [
      await pay(pinnedNew, withUnknown(pinnedNew)),
      await pay(pinnedOld, withUnknown(pinnedOld), '2026-11-29'),
    ]) {
      expect(response.status).toBe(400);
      const pointers = (response.body.errors as { code: string; source: { pointer: string } }[]).map((error) => [
        error.code,
        error.source.pointer,
      ]);
      expect(pointers).toEqual(
        expect.arrayContaining([
          ['unknown_field', '/data/attributes/colour'],
          ['unknown_field', '/data/attributes/transaction/tip'],
          ['unknown_field', '/data/extra'],
        ]),
      );
    }
    expect(await paymentCount()).toBe(before);
  });

  it('ignores them in 2026-11-21, by pin or by header, and keeps every member the body takes', async () => {
    for (const [as, version] of [
      [pinnedOld, undefined],
      [pinnedNew, '2026-11-21'],
    ] as const) {
      const response = await pay(as, withUnknown(as), version);
      expect(response.status).toBe(201);
      expect(response.headers.get('pps-version')).toBe('2026-11-21');
      expect(response.body.data.attributes).toMatchObject({
        status: 'pending',
        transaction: { amount: '1000', invoice: 'INV-1001' },
      });
      expect(response.body.data.attributes).not.toHaveProperty('colour');
    }
  });

  it('a body wrong in another way is still refused in 2026-11-21, for that alone', async () => {
    const body = withUnknown(pinnedOld) as { data: { attributes: { transaction: { amount: string } } } };
    body.data.attributes.transaction.amount = '-5';
    const response = await pay(pinnedOld, body);
    expect(response.status).toBe(400);
    const errors = response.body.errors as { code: string; source: { pointer: string } }[];
    expect(errors.map((error) => error.source.pointer)).toEqual(['/data/attributes/transaction/amount']);
  });
});

describe('2026-11-29: a body needs its Content-Type (read as JSON before)', () => {
  const bytes = (as: Credentials) => new TextEncoder().encode(JSON.stringify(paymentBody(as)));

  it('is a 415 without one in 2026-11-29, and creates nothing', async () => {
    const before = await paymentCount();
    expectError(await payRaw(pinnedNew, bytes(pinnedNew), pinnedNew.headers), 415, 'unsupported_media_type');
    expect(await paymentCount()).toBe(before);
  });

  it('is read as JSON in 2026-11-21', async () => {
    const response = await payRaw(pinnedOld, bytes(pinnedOld), pinnedOld.headers);
    expect(response.status).toBe(201);
    expect(response.body.data.attributes.status).toBe('pending');
  });
});

describe('2026-11-29: a body that is not UTF-8 is refused (its bad bytes kept as U+FFFD before)', () => {
  /** A payment body whose invoice holds the byte 0xFF, which UTF-8 never has. */
  const badBytes = (as: Credentials) => {
    const text = JSON.stringify(paymentBody(as)).replace('INV-1001', 'INV-@@');
    const encoded = new TextEncoder().encode(text);
    const at = text.indexOf('@@');
    encoded[at] = 0xff;
    return new Uint8Array(encoded.filter((_, index) => index !== at + 1));
  };
  const json = (as: Credentials) => ({ ...as.headers, 'content-type': 'application/json' });

  it('refuses it at the string in 2026-11-29', async () => {
    expectError(
      await payRaw(pinnedNew, badBytes(pinnedNew), json(pinnedNew)),
      400,
      'invalid_field',
      '/data/attributes/transaction/invoice',
    );
  });

  it('keeps it with a replacement character in 2026-11-21', async () => {
    const response = await payRaw(pinnedOld, badBytes(pinnedOld), json(pinnedOld));
    expect(response.status).toBe(201);
    expect(response.body.data.attributes.transaction.invoice).toBe('INV-\uFFFD');
  });
});

describe('2026-11-29: a payment waiting for 3-D Secure is requires_action (pending before)', () => {
  it('reads requires_action in 2026-11-29 and pending in 2026-11-21, on create, GET, the list and the events API', async () => {
    const world = worlds.get(pinnedNew) as { merchantId: string; tokenId: string };
    const tokenId = await createCardToken(stack, pinnedNew, '4000002760003184');
    const created = await pay(
      pinnedNew,
      tokenv3Body({
        merchantId: world.merchantId,
        tokenId,
        attributes: { authentication: { mode: 'automatic', returnUrl: 'https://shop.example.com/done' } },
      }),
    );
    expect(created.status).toBe(201);
    const { id } = created.body.data;
    expect(created.body.data.attributes.status).toBe('requires_action');
    const old = { headers: { 'PPS-Version': '2026-11-21' } };
    const read = await stack.call('GET', `/payments/${id}`, { as: pinnedNew, ...old });
    expect(read.body.data.attributes.status).toBe('pending');
    expect(read.body.data.attributes.nextAction.type).toBe('redirect');
    const listed = await stack.call('GET', '/payments?limit=5', { as: pinnedNew, ...old });
    expect(listed.body.data.find((item: { id: string }) => item.id === id).attributes.status).toBe('pending');
    const status = await stack.call('GET', `/payments/status/${id}`, { as: pinnedNew, ...old });
    expect(status.body.data.attributes.status).toBe('pending');

    const [event] =
      await stack.sql`select id from events where resource_id = ${id} and type = 'payment.requires_action'`;
    const newest = await stack.call('GET', `/events/${event?.id}`, { as: pinnedNew });
    expect(newest.body.data.attributes.payload.data.attributes.status).toBe('requires_action');
    const older = await stack.call('GET', `/events/${event?.id}`, { as: pinnedNew, ...old });
    expect(older.body.data.attributes.payload.data.attributes.status).toBe('pending');
    const events = await stack.call('GET', `/events?limit=100`, { as: pinnedNew, ...old });
    const item = events.body.data.find((each: { id: string }) => each.id === event?.id);
    expect(item.attributes.payload.data.attributes.status).toBe('pending');
  });

  it('reads pending for an account pinned to 2026-11-21, and requires_action when it asks for 2026-11-29', async () => {
    const world = worlds.get(pinnedOld) as { merchantId: string; tokenId: string };
    const tokenId = await createCardToken(stack, pinnedOld, '4000002760003184');
    const authentication = { mode: 'automatic', returnUrl: 'https://shop.example.com/done' };
    const created = await pay(
      pinnedOld,
      tokenv3Body({ merchantId: world.merchantId, tokenId, attributes: { authentication } }),
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('pps-version')).toBe('2026-11-21');
    expect(created.body.data.attributes.status).toBe('pending');
    const newest = await stack.call('GET', `/payments/${created.body.data.id}`, {
      as: pinnedOld,
      headers: { 'PPS-Version': '2026-11-29' },
    });
    expect(newest.body.data.attributes.status).toBe('requires_action');
  });
});

describe("2026-11-21 over a real socket (the body read off Node's stream once, for the route that reads it)", () => {
  it("a forwarded body and one of the gateway's own routes, each with an unknown member", async () => {
    const { server, port } = await listen(stack.gateway.fetch, 0, '127.0.0.1');
    try {
      const send = (path: string, body: unknown) =>
        fetch(`http://127.0.0.1:${port}${path}`, {
          method: 'POST',
          headers: { ...pinnedOld.headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const body = paymentBody(pinnedOld, { colour: 'red' });
      const paid = await send('/payments', body);
      expect(paid.status).toBe(201);
      expect(paid.headers.get('pps-version')).toBe('2026-11-21');
      const clock = await send('/sandbox/clock', {
        data: { type: 'clock', attributes: { time: new Date(Date.now() + 60_000).toISOString(), colour: 'red' } },
      });
      expect(clock.status).toBe(200);
      expect(((await clock.json()) as { data: { type: string } }).data.type).toBe('clock');
    } finally {
      await closeServer(server);
    }
  });
});
