import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;

beforeAll(async () => {
  stack = await createTestStack({ manualClock: true, env: { AUTH_CACHE_TTL_MS: '0' } });
  creds = await stack.createAccount();
});
afterAll(() => stack.close());

const keyBody = (appId: string) => ({ data: { type: 'auth', attributes: { appId } } });
const tokenBody = (appKey: string) => ({ data: { type: 'auth', attributes: { appKey } } });

describe('admin onboarding', () => {
  it('creates an account with an API key shown once and an app id', async () => {
    const res = await stack.call('POST', '/admin/accounts', {
      headers: stack.admin,
      body: { data: { type: 'accounts', attributes: { name: 'Globex' } } },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ type: 'accounts', attributes: { name: 'Globex', status: 'active' } });
    expect(res.body.data.id).toMatch(/^acct_/);
    expect(res.body.data.attributes.apiKey).toMatch(/^sk_test_/);
    expect(res.body.data.attributes.appId).toMatch(/^app_/);
    expect(res.body.links.self).toBe(`http://localhost:8080/admin/accounts/${res.body.data.id}`);
    const [row] = await stack.sql`select api_key_hash from accounts where id = ${res.body.data.id}`;
    expect(row!.api_key_hash).not.toContain(res.body.data.attributes.apiKey);
  });

  it('refuses a missing or wrong admin token', async () => {
    const body = { data: { type: 'accounts', attributes: { name: 'X' } } };
    expectError(await stack.call('POST', '/admin/accounts', { body }), 401, 'invalid_admin_token');
    expectError(
      await stack.call('POST', '/admin/accounts', { body, headers: { authorization: 'Bearer nope' } }),
      401,
      'invalid_admin_token',
    );
  });

  it('validates the body with pointers', async () => {
    const res = await stack.call('POST', '/admin/accounts', {
      headers: stack.admin,
      body: { data: { type: 'nope', attributes: {} } },
    });
    expectError(res, 400, 'invalid_field', '/data/type');
    expectError(res, 400, 'missing_field', '/data/attributes/name');
  });

  it('404s an unknown account on update', async () => {
    const res = await stack.call('PUT', '/admin/accounts/acct_missing', {
      headers: stack.admin,
      body: { data: { type: 'accounts', attributes: { status: 'disabled' } } },
    });
    expectError(res, 404, 'account_not_found');
  });
});

describe('POST /auth/key', () => {
  it('needs x-api-key', async () => {
    const err = expectError(
      await stack.call('POST', '/auth/key', { body: keyBody(creds.appId) }),
      401,
      'missing_api_key',
    );
    expect(err.detail).toMatch(/x-api-key/);
  });

  it('refuses an unknown API key', async () => {
    const res = await stack.call('POST', '/auth/key', {
      headers: { 'x-api-key': 'sk_test_nope' },
      body: keyBody(creds.appId),
    });
    expectError(res, 401, 'invalid_api_key');
  });

  it('refuses an appId of another account with 403', async () => {
    const other = await stack.createAccount('Other');
    const res = await stack.call('POST', '/auth/key', {
      headers: { 'x-api-key': creds.apiKey },
      body: keyBody(other.appId),
    });
    expectError(res, 403, 'app_not_authorized', '/data/attributes/appId');
  });

  it('400s a missing appId and a wrong data.type', async () => {
    const res = await stack.call('POST', '/auth/key', {
      headers: { 'x-api-key': creds.apiKey },
      body: { data: { type: 'payments', attributes: {} } },
    });
    expectError(res, 400, 'invalid_field', '/data/type');
    expectError(res, 400, 'missing_field', '/data/attributes/appId');
  });

  it('returns the API key as data.id and a new app key', async () => {
    const fresh = await stack.createAccount('Keyed');
    const res = await stack.call('POST', '/auth/key', {
      headers: { 'x-api-key': fresh.apiKey },
      body: keyBody(fresh.appId),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ data: { type: 'auth', id: fresh.apiKey, attributes: { appId: fresh.appId } } });
    expect(res.body.data.attributes.appKey).toMatch(/^ak_/);
  });
});

describe('POST /auth/token', () => {
  it('400s a missing appKey', async () => {
    const res = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': creds.apiKey },
      body: { data: { type: 'auth', attributes: {} } },
    });
    expectError(res, 400, 'missing_field', '/data/attributes/appKey');
  });

  it('401s an invalid app key', async () => {
    const res = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': creds.apiKey },
      body: tokenBody('ak_nope'),
    });
    expectError(res, 401, 'invalid_app_key', '/data/attributes/appKey');
  });

  it("401s another account's app key", async () => {
    const other = await stack.createAccount('Other 2');
    const res = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': creds.apiKey },
      body: tokenBody(other.appKey),
    });
    expectError(res, 401, 'invalid_app_key');
  });

  it('401s a superseded app key, and the tokens minted from it stop working', async () => {
    const fresh = await stack.createAccount('Rotating');
    const before = await stack.call('GET', '/auth/token', { as: fresh });
    expect(before.status).toBe(200);
    const rotated = await stack.call('POST', '/auth/key', {
      headers: { 'x-api-key': fresh.apiKey },
      body: keyBody(fresh.appId),
    });
    expect(rotated.status).toBe(201);
    const old = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': fresh.apiKey },
      body: tokenBody(fresh.appKey),
    });
    const err = expectError(old, 401, 'app_key_superseded');
    expect(err.detail).toMatch(/superseded/);
    expectError(await stack.call('GET', '/auth/token', { as: fresh }), 401, 'token_revoked');
    const renewed = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': fresh.apiKey },
      body: tokenBody(rotated.body.data.attributes.appKey),
    });
    expect(renewed.status).toBe(201);
  });

  it('issues a JWT valid one hour', async () => {
    const res = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': creds.apiKey },
      body: tokenBody(creds.appKey),
    });
    expect(res.status).toBe(201);
    const { appToken, expiresIn, tokenType } = res.body.data.attributes;
    expect(tokenType).toBe('Bearer');
    expect(expiresIn).toBe(3600);
    const [header, payload] = appToken
      .split('.')
      .slice(0, 2)
      .map((part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header).toMatchObject({ alg: 'HS256', typ: 'JWT', kid: 'k1' });
    expect(payload).toMatchObject({ sub: creds.appId, acc: creds.accountId });
    expect(payload.exp - payload.iat).toBe(3600);
    expect(payload.jti).toBeTruthy();
  });
});

describe('the four headers', () => {
  const without = (name: string) => Object.fromEntries(Object.entries(creds.headers).filter(([key]) => key !== name));

  it.each([
    ['authorization', 'missing_authorization'],
    ['x-api-key', 'missing_api_key'],
    ['appid', 'missing_app_id'],
  ])('401s when %s is missing', async (header, code) => {
    expectError(await stack.call('GET', '/auth', { headers: without(header) }), 401, code);
  });

  it.each([
    ['bearer lower-case', (t: string) => `bearer ${t}`],
    ['two spaces', (t: string) => `Bearer  ${t}`],
    ['no scheme', (t: string) => t],
    ['Basic scheme', (t: string) => `Basic ${t}`],
    ['token with a space inside', (t: string) => `Bearer ${t.slice(0, 5)} ${t.slice(5)}`],
  ])('401s a malformed Authorization (%s)', async (_, format) => {
    const res = await stack.call('GET', '/auth', {
      headers: { ...creds.headers, authorization: format(creds.appToken) },
    });
    const err = expectError(res, 401, 'malformed_authorization');
    expect(err.detail).toMatch(/capital B, one space/);
  });

  it('401s a token whose signature is wrong', async () => {
    const [h, p] = creds.appToken.split('.');
    const res = await stack.call('GET', '/auth', {
      headers: { ...creds.headers, authorization: `Bearer ${h}.${p}.AAAA` },
    });
    expectError(res, 401, 'invalid_token');
  });

  it('401s an unknown API key', async () => {
    expectError(
      await stack.call('GET', '/auth', { headers: { ...creds.headers, 'x-api-key': 'sk_test_x' } }),
      401,
      'invalid_api_key',
    );
  });

  it("401s a token of another account (with this account's API key)", async () => {
    const other = await stack.createAccount('Mallory');
    const res = await stack.call('GET', '/auth', {
      headers: { ...creds.headers, authorization: `Bearer ${other.appToken}` },
    });
    expectError(res, 401, 'token_account_mismatch');
  });

  it('401s an appId that is not the token app', async () => {
    const res = await stack.call('GET', '/auth', { headers: { ...creds.headers, appid: 'app_someoneelse' } });
    expectError(res, 401, 'token_app_mismatch');
  });

  it('401s an expired token (injected clock, no waiting)', async () => {
    const fresh = await stack.createAccount('Expiring');
    expect((await stack.call('GET', '/auth/token', { as: fresh })).status).toBe(200);
    stack.clock!.advance(3600 * 1000 - 1000);
    expect((await stack.call('GET', '/auth/token', { as: fresh })).status).toBe(200);
    stack.clock!.advance(1000);
    const err = expectError(await stack.call('GET', '/auth/token', { as: fresh }), 401, 'token_expired');
    expect(err.detail).toMatch(/expired/);
    stack.clock!.set(new Date());
  });

  it('403s a disabled account, on auth calls and authenticated calls alike', async () => {
    const fresh = await stack.createAccount('Disabled Co');
    const disable = await stack.call('PUT', `/admin/accounts/${fresh.accountId}`, {
      headers: stack.admin,
      body: { data: { type: 'accounts', attributes: { status: 'disabled' } } },
    });
    expect(disable.status).toBe(200);
    expectError(await stack.call('GET', '/auth', { as: fresh }), 403, 'account_disabled');
    const key = await stack.call('POST', '/auth/key', {
      headers: { 'x-api-key': fresh.apiKey },
      body: keyBody(fresh.appId),
    });
    expectError(key, 403, 'account_disabled');
    const token = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': fresh.apiKey },
      body: tokenBody(fresh.appKey),
    });
    expectError(token, 403, 'account_disabled');
  });

  it('GET /auth/token describes the token; GET /auth the account and apps', async () => {
    const verify = await stack.call('GET', '/auth/token', { as: creds });
    expect(verify.body.data).toMatchObject({
      type: 'auth',
      id: creds.apiKey,
      attributes: { valid: true, appId: creds.appId, accountId: creds.accountId },
    });
    const me = await stack.call('GET', '/auth', { as: creds });
    expect(me.status).toBe(200);
    expect(me.body.data.attributes.accountId).toBe(creds.accountId);
    expect(me.body.data.attributes.apps.map((app: { appId: string }) => app.appId)).toEqual([creds.appId]);
  });
});

describe('transport errors, all in the envelope', () => {
  it('400s malformed JSON', async () => {
    const res = await stack.call('POST', '/auth/key', {
      headers: { 'x-api-key': creds.apiKey, 'content-type': 'application/json' },
      raw: '{"data": ',
    });
    expectError(res, 400, 'malformed_json');
  });

  it('415s a body that is not JSON', async () => {
    const res = await stack.call('POST', '/auth/key', {
      headers: { 'x-api-key': creds.apiKey, 'content-type': 'text/plain' },
      raw: 'appId=x',
    });
    expectError(res, 415, 'unsupported_media_type');
    expectError(await stack.call('POST', '/merchants', { as: creds, raw: '{}' }), 415, 'unsupported_media_type');
  });

  it('413s a body over 1 MiB', async () => {
    const big = JSON.stringify({ data: { type: 'auth', attributes: { appId: 'x'.repeat(1024 * 1024) } } });
    const res = await stack.call('POST', '/auth/key', {
      headers: { 'x-api-key': creds.apiKey, 'content-type': 'application/json' },
      raw: big,
    });
    expectError(res, 413, 'payload_too_large');
  });

  it('404s an unknown route, with x-request-id echoed', async () => {
    const res = await stack.call('GET', '/nope', { headers: { 'x-request-id': 'client-req-1' } });
    expectError(res, 404, 'route_not_found');
    expect(res.headers.get('x-request-id')).toBe('client-req-1');
    expect(res.body.meta.requestId).toBe('client-req-1');
  });

  it('401s a routed path without credentials before reaching the service', async () => {
    expectError(await stack.call('GET', '/payments/pay_x'), 401, 'missing_authorization');
  });
});

describe('sandbox clock', () => {
  it('moves forward only, per account', async () => {
    const fresh = await stack.createAccount('Clocked');
    const start = await stack.call('GET', '/sandbox/clock', { as: fresh });
    expect(start.body.data).toMatchObject({ type: 'clock', id: fresh.accountId, attributes: { offsetSeconds: 0 } });
    const moved = await stack.call('POST', '/sandbox/clock', {
      as: fresh,
      body: { data: { type: 'clock', attributes: { advanceSeconds: 86400 } } },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data.attributes.offsetSeconds).toBe(86400);
    const back = await stack.call('POST', '/sandbox/clock', {
      as: fresh,
      body: { data: { type: 'clock', attributes: { time: '2001-01-01T00:00:00Z' } } },
    });
    expectError(back, 422, 'clock_backwards', '/data/attributes/time');
    const negative = await stack.call('POST', '/sandbox/clock', {
      as: fresh,
      body: { data: { type: 'clock', attributes: { advanceSeconds: -5 } } },
    });
    expectError(negative, 422, 'clock_backwards', '/data/attributes/advanceSeconds');
    const both = await stack.call('POST', '/sandbox/clock', {
      as: fresh,
      body: { data: { type: 'clock', attributes: {} } },
    });
    expect(both.status).toBe(400);
    const other = await stack.call('GET', '/sandbox/clock', { as: creds });
    expect(other.body.data.attributes.offsetSeconds).toBe(0);
  });
});

describe('operations endpoints', () => {
  it('serves health, readiness, metrics, the OpenAPI document and the docs page', async () => {
    expect((await stack.call('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await stack.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database).toBe('ok');
    const metrics = await stack.call('GET', '/metrics');
    expect(metrics.body).toContain('pps_http_request_duration_seconds');
    const doc = await stack.call('GET', '/openapi.json');
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/auth/key', '/auth/token', '/admin/accounts']),
    );
    const docs = await stack.call('GET', '/docs');
    expect(docs.body).toContain('/openapi.json');
    const asset = await stack.call('GET', '/docs/assets/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
  });
});

describe('webhook and event routes', () => {
  it('are live behind the four headers (test/webhooks/webhooks.test.ts and events.test.ts cover them)', async () => {
    const res = await stack.call('GET', '/webhooks', { as: creds });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await stack.call('GET', '/events', { as: creds })).status).toBe(200);
    expectError(await stack.call('GET', '/events/evt_x', { as: creds }), 404, 'event_not_found');
    expectError(await stack.call('GET', '/webhooks'), 401, 'missing_authorization');
    expectError(await stack.call('GET', '/events/evt_x'), 401, 'missing_authorization');
  });
});
