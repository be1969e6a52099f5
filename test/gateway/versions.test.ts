import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayment, tokenv3Body } from '../fixtures/payments';
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

beforeAll(async () => {
  // No cached accounts: the pin set below is read at the next request.
  stack = await createTestStack({ env: { AUTH_CACHE_TTL_MS: '0' } });
  const [fresh, old] = await Promise.all([
    createWorld(stack, { account: 'Versions new' }),
    createWorld(stack, { account: 'Versions old' }),
  ]);
  pinnedNew = fresh.creds;
  pinnedOld = old.creds;
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
