import { AuthCache, httpUpstream, inProcessUpstream } from '@pps/gateway';
import { createGatewayApp } from '@pps/gateway/app';
import { createMerchantsApp } from '@pps/merchants/app';
import { createPaymentsApp } from '@pps/payments/app';
import { createLogger } from '@pps/shared/logger';
import { closeServer, listen } from '@pps/shared/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personalMerchantAttributes } from '../fixtures/merchants';
import { createPayment, expiryIn, postPayment, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/** Regression tests for the defects a fuzzer found at the edge (hardening issue, first step). */

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({ creds, merchantId, tokenId } = await createWorld(stack, { account: 'Hardening' }));
});
afterAll(() => stack?.close());

const counts = async () =>
  (
    await stack.sql`select (select count(*) from accounts)::int as accounts, (select count(*) from customers)::int as customers,
      (select count(*) from tokens)::int as tokens, (select count(*) from payments)::int as payments,
      (select count(*) from merchants)::int as merchants`
  )[0];

describe('the sandbox clock is bounded', () => {
  it('refuses an advance past ten years, and the account keeps working', async () => {
    const fresh = await stack.createAccount('Clock');
    const clock = (attributes: Record<string, unknown>) =>
      stack.call('POST', '/sandbox/clock', { as: fresh, body: { data: { type: 'clock', attributes } } });
    for (const advanceSeconds of [2 ** 53 - 1, 11 * 366 * 86_400]) {
      expectError(await clock({ advanceSeconds }), 422, 'clock_out_of_range', '/data/attributes/advanceSeconds');
    }
    expectError(await clock({ time: '9999-12-31T00:00:00Z' }), 422, 'clock_out_of_range', '/data/attributes/time');
    expect((await clock({ advanceSeconds: 5 * 365 * 86_400 })).status).toBe(200);
    expect((await stack.call('GET', '/sandbox/clock', { as: fresh })).status).toBe(200);
    expect(
      (
        await stack.call('POST', '/customers', {
          as: fresh,
          body: { data: { type: 'customers', attributes: { name: 'Ann' } } },
        })
      ).status,
    ).toBe(201);
    const token = await stack.call('POST', '/tokens', {
      as: fresh,
      body: {
        data: {
          type: 'tokens',
          attributes: {
            tokenType: 'card',
            card: { holder: 'Ann', number: '4111111111111111', expiry: expiryIn(8), code: '123' },
          },
        },
      },
    });
    expect(token.status).toBe(201);
  });
});

describe('percent-encoded path ids', () => {
  it('reach the service and answer like any id, never with an internal signature error', async () => {
    expectError(await stack.call('GET', '/payments/pay_x%20y', { as: creds }), 404, 'payment_not_found');
    expectError(await stack.call('GET', "/payments/pay_'%20or%201=1--", { as: creds }), 404, 'payment_not_found');
    expectError(await stack.call('GET', '/merchants/mer_%C3%A9', { as: creds }), 404, 'merchant_not_found');
    const id = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data.id as string;
    const encoded = `/payments/%${'p'.charCodeAt(0).toString(16)}${id.slice(1)}`;
    const found = await stack.call('GET', encoded, { as: creds });
    expect(found.status).toBe(200);
    expect(found.body.data.id).toBe(id);
  });

  it('turns a service refusing the internal signature into a 502 that does not name the internal hop', async () => {
    // Secrets only matter between processes: the payments service over HTTP, with a secret of its own.
    const log = createLogger({ level: 'silent' });
    const misconfigured = { ...stack.config, INTERNAL_SECRET: 'another-internal-secret-0123456789abcdef' };
    const payments = await listen(
      createPaymentsApp({ config: misconfigured, db: stack.db, log }).fetch,
      0,
      '127.0.0.1',
    );
    const upstream = httpUpstream('payments', `http://127.0.0.1:${payments.port}`, stack.config.INTERNAL_SECRET);
    try {
      const gateway = createGatewayApp({
        config: stack.config,
        db: stack.db,
        log,
        clock: { now: () => new Date() },
        auth: new AuthCache(stack.db, 0),
        upstreams: {
          payments: upstream,
          merchants: inProcessUpstream('merchants', createMerchantsApp({ config: stack.config, db: stack.db, log })),
        },
      });
      const response = await gateway.request('/payments/states', { headers: creds.headers });
      const body = await response.json();
      expect(response.status).toBe(502);
      expect(body.errors[0].code).toBe('upstream_refused');
      expect(JSON.stringify(body)).not.toContain('internal');
    } finally {
      await upstream.close();
      await closeServer(payments.server);
    }
  });
});

describe('text PostgreSQL cannot store', () => {
  it('answers 400 with the pointer of each NUL or unpaired surrogate, and stores nothing', async () => {
    const before = await counts();
    const account = await stack.call('POST', '/admin/accounts', {
      headers: stack.admin,
      body: { data: { type: 'accounts', attributes: { name: 'Nul\u0000Corp' } } },
    });
    expectError(account, 400, 'invalid_field', '/data/attributes/name');
    const customer = await stack.call('POST', '/customers', {
      as: creds,
      body: { data: { type: 'customers', attributes: { name: 'A\u0000B', email: 'x\ud800@example.com' } } },
    });
    expectError(customer, 400, 'invalid_field', '/data/attributes/name');
    expectError(customer, 400, 'invalid_field', '/data/attributes/email');
    const token = await stack.call('POST', '/tokens', {
      as: creds,
      body: {
        data: {
          type: 'tokens',
          attributes: {
            tokenType: 'card',
            card: { holder: 'Jane\u0000', number: '4111111111111111', expiry: expiryIn(2), code: '123' },
          },
        },
      },
    });
    expectError(token, 400, 'invalid_field', '/data/attributes/card/holder');
    const payment = await postPayment(
      stack,
      creds,
      tokenv3Body({ merchantId, tokenId, attributes: { billingAddress: { zip: '941\u000005', country: 'USA' } } }),
    );
    expectError(payment, 400, 'invalid_field', '/data/attributes/billingAddress/zip');
    const merchant = await stack.call('POST', '/merchants', {
      as: creds,
      body: {
        data: {
          type: 'merchants',
          attributes: personalMerchantAttributes({
            personalAddress: {
              line1: '\ud800 Market St',
              city: 'San Francisco',
              state: 'CA',
              zip: '94105',
              country: 'USA',
            },
          }),
        },
      },
    });
    expectError(merchant, 400, 'invalid_field', '/data/attributes/personalAddress/line1');
    expectError(await stack.call('GET', '/payments/pay_%00', { as: creds }), 400, 'invalid_path');
    expectError(await stack.call('GET', '/merchants/mer_a%00b', { as: creds }), 400, 'invalid_path');
    // In a query string: a 400 naming the parameter, before any route reads it (it reached PostgreSQL: a 500).
    const queries = [
      ['/events?resourceId=%00', 'resourceId'],
      ['/payouts?merchantId=mer_%00', 'merchantId'],
      ['/payments?id=mer_1&status=%ED%A0%80', 'status'],
    ];
    for (const [path, parameter] of queries) {
      const error = expectError(await stack.call('GET', path!, { as: creds }), 400, 'invalid_field');
      expect(error.source).toEqual({ parameter });
    }
    expect(await counts()).toEqual(before);
  });
});

describe('POST /admin/accounts', () => {
  it('presents the account like every resource: no internal row, no key hash', async () => {
    const created = await stack.call('POST', '/admin/accounts', {
      headers: stack.admin,
      body: { data: { type: 'accounts', attributes: { name: 'Presented' } } },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.data.attributes).sort()).toEqual(
      ['apiKey', 'apiVersion', 'appId', 'createdAt', 'name', 'status', 'updatedAt'].sort(),
    );
    expect(JSON.stringify(created.body)).not.toMatch(/apiKeyHash|api_key_hash/);
  });
});

describe('a known path with an unsupported method', () => {
  it('is a 405 with Allow, in the error envelope; an unknown path stays a 404', async () => {
    const deleted = await stack.call('DELETE', '/payments/pay_0000000000aaaaaaaaaaaaaaaa', { as: creds });
    expect(expectError(deleted, 405, 'method_not_allowed').detail).toContain('GET');
    expect(deleted.headers.get('allow')).toBe('GET');
    const put = await stack.call('PUT', '/auth/key', { headers: { 'x-api-key': creds.apiKey }, body: {} });
    expectError(put, 405, 'method_not_allowed');
    expect(put.headers.get('allow')).toBe('POST');
    const merchants = await stack.call('DELETE', '/merchants', { as: creds });
    expect(merchants.headers.get('allow')).toBe('GET, POST');
    expectError(await stack.call('GET', '/nowhere', { as: creds }), 404, 'route_not_found');
  });
});

describe('ids that cannot be ours', () => {
  it('are refused like unknown ones, echoed only as a short excerpt', async () => {
    const long = `pay_${'a'.repeat(10_000)}`;
    for (const [path, code] of [
      [`/payments/${long}`, 'payment_not_found'],
      [`/merchants/mer_${'b'.repeat(10_000)}`, 'merchant_not_found'],
      [`/tokens/tok_${'c'.repeat(10_000)}`, 'token_not_found'],
      [`/customers/cus_${'d'.repeat(10_000)}`, 'customer_not_found'],
    ] as const) {
      const error = expectError(await stack.call('GET', path, { as: creds }), 404, code);
      expect(error.detail.length).toBeLessThan(200);
    }
    const payment = await postPayment(stack, creds, tokenv3Body({ merchantId: `mer_${'e'.repeat(10_000)}`, tokenId }));
    // The body's ids are bounded by the contract: a clear 400 at the field.
    const error = expectError(payment, 400, 'invalid_field', '/data/attributes/merchantId');
    expect(error.detail.length).toBeLessThan(200);
  });
});

describe('a JSON body sent without Content-Type', () => {
  it('is a 415 on own and forwarded routes, as is a declared non-JSON type, and stores nothing', async () => {
    const before = await counts();
    const body = JSON.stringify({ data: { type: 'auth', attributes: { appKey: creds.appKey } } });
    const token = await stack.gateway.request('/auth/token', {
      method: 'POST',
      headers: { 'x-api-key': creds.apiKey },
      body: new TextEncoder().encode(body),
    });
    expect(token.status).toBe(415);
    const customer = await stack.gateway.request('/customers', {
      method: 'POST',
      headers: creds.headers,
      body: new TextEncoder().encode(JSON.stringify({ data: { type: 'customers', attributes: { name: 'No Type' } } })),
    });
    expect(customer.status).toBe(415);
    expect((await customer.json()).errors[0].code).toBe('unsupported_media_type');
    expect(await counts()).toEqual(before);
    const declared = await stack.call('POST', '/customers', {
      as: creds,
      raw: JSON.stringify({ data: { type: 'customers', attributes: { name: 'Text' } } }),
      headers: { 'content-type': 'text/plain' },
    });
    expectError(declared, 415, 'unsupported_media_type');
  });
});

describe('authentication comes before the content type', () => {
  it('answers 401 to a stranger whatever the body, on own and forwarded routes', async () => {
    const before = await counts();
    const text = { 'content-type': 'text/plain' };
    for (const [path, code] of [
      ['/payments', 'missing_authorization'],
      ['/sandbox/clock', 'missing_authorization'],
      ['/auth/token', 'missing_api_key'],
      ['/admin/accounts', 'invalid_admin_token'],
    ] as const) {
      const res = await stack.gateway.request(path, { method: 'POST', headers: text, body: 'not json' });
      expectError({ status: res.status, body: await res.json(), headers: res.headers }, 401, code);
    }
    // Known, the same caller is told the type is wrong.
    const clock = await stack.call('POST', '/sandbox/clock', { as: creds, raw: 'not json', headers: text });
    expectError(clock, 415, 'unsupported_media_type');
    const admin = await stack.gateway.request('/admin/accounts', {
      method: 'POST',
      headers: { ...text, authorization: `Bearer ${stack.config.ADMIN_TOKEN}` },
      body: 'not json',
    });
    expect(admin.status).toBe(415);
    expect(await counts()).toEqual(before);
  });
});

describe('a deeply nested body', () => {
  it('is a fast 400 at the depth it went too far, on own and forwarded routes, and stores nothing', async () => {
    const before = await counts();
    const json = { 'content-type': 'application/json' };
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const customer = await stack.call('POST', '/customers', { as: creds, raw: deep, headers: json });
    expectError(customer, 400, 'body_too_deep', `/${Array(32).fill('0').join('/')}`);
    const nested = `{"data":{"type":"customers","attributes":{"name":"Deep","externalId":${deep}}}}`;
    expectError(
      await stack.call('POST', '/customers', { as: creds, raw: nested, headers: json }),
      400,
      'body_too_deep',
    );
    const objects = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    expectError(
      await stack.call('POST', '/admin/accounts', { headers: { ...stack.admin, ...json }, raw: objects }),
      400,
      'body_too_deep',
    );
    expect(await counts()).toEqual(before);
  });
});
