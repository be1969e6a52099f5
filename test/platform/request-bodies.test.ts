import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardToken, newRequestId, postPayment, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * A body is checked whole: a member its schema does not take is a 400 `unknown_field` (never ignored), a body
 * without `Content-Type: application/json` is a 415, bytes that are not UTF-8 are a 400 at the field that holds
 * them, and an enum's error lists every value it takes. Each refusal changes nothing.
 */

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({ creds, merchantId, tokenId } = await createWorld(stack));
});
afterAll(() => stack?.close());

/** Every payment of the account, counted in the database: what a refused request must leave as it was. */
const paymentRows = async () => {
  const [row] = await stack.sql<{ count: string }[]>`
    select (select count(*) from payments) + (select count(*) from payment_claims) as count`;
  return Number(row?.count);
};

const scheduleOf = async () =>
  (await stack.call('GET', `/merchants/${merchantId}`, { as: creds })).body.data.attributes.payoutSchedule;

describe('unknown members', () => {
  it('a misspelt capture is a 400 naming capture, and charges nothing', async () => {
    const before = await paymentRows();
    const requestId = newRequestId();
    const body = tokenv3Body({ merchantId, tokenId, requestId, attributes: { captrue: false } });
    const res = await postPayment(stack, creds, body);
    const error = expectError(res, 400, 'unknown_field', '/data/attributes/captrue');
    expect(error.detail).toBe('captrue is not a field of this object; did you mean capture?');
    expect(res.body.errors).toHaveLength(1);
    expect(await paymentRows()).toBe(before);
    // A 400 stores no idempotent answer: the corrected body under the same requestId authorizes only.
    const fixed = await postPayment(
      stack,
      creds,
      tokenv3Body({ merchantId, tokenId, requestId, attributes: { capture: false } }),
    );
    expect(fixed.status).toBe(201);
    expect(fixed.body.data.attributes.status).toBe('authorized');
  });

  it('a misspelt interval leaves the payout schedule as it was', async () => {
    const before = await scheduleOf();
    const res = await stack.call('PUT', `/merchants/${merchantId}/payout-schedule`, {
      as: creds,
      body: { data: { type: 'merchants', attributes: { interval: 'daily', intervall: 'weekly' } } },
    });
    const error = expectError(res, 400, 'unknown_field', '/data/attributes/intervall');
    expect(error.detail).toContain('did you mean interval?');
    expect(await scheduleOf()).toEqual(before);
  });

  it('lists every unknown member with its own pointer, at every depth, beside other problems', async () => {
    const body = tokenv3Body({ merchantId, tokenId, attributes: { color: 'red' } }) as {
      data: Record<string, unknown> & { attributes: Record<string, unknown> };
    };
    body.data.extra = 1;
    body.data.attributes.transaction = { amount: '1000', currency: 'USD', invoice: 'A', tip: '5' };
    body.data.attributes.token = { tokenId, holder: 'Jane', expiry: '1330', useAVS: true };
    const res = await postPayment(stack, creds, { ...body, meta: {} });
    expectError(res, 400, 'unknown_field', '/meta');
    expectError(res, 400, 'unknown_field', '/data/extra');
    const color = expectError(res, 400, 'unknown_field', '/data/attributes/color');
    expect(color.detail).toMatch(/^color is not a field of this object; it takes paymentType, merchantId, /);
    expectError(res, 400, 'unknown_field', '/data/attributes/transaction/tip');
    expectError(res, 400, 'invalid_field', '/data/attributes/token/expiry');
  });

  it('refuses unknown members on the other bodies too: merchants, tokens, webhooks, auth, admin, clock', async () => {
    const cases: [string, string, Record<string, string>, unknown, string][] = [
      [
        'POST',
        '/tokens',
        creds.headers,
        {
          data: {
            type: 'tokens',
            attributes: {
              tokenType: 'card',
              card: { holder: 'A', number: '4242424242424242', expiry: '1230', code: '123', cvv: '1' },
            },
          },
        },
        '/data/attributes/card/cvv',
      ],
      [
        'POST',
        '/webhooks',
        creds.headers,
        { data: { type: 'webhooks', attributes: { url: 'https://example.com/h', events: ['*'], secret: 'x' } } },
        '/data/attributes/secret',
      ],
      [
        'POST',
        '/auth/key',
        { 'x-api-key': creds.apiKey },
        { data: { type: 'auth', attributes: { appId: creds.appId, appID: 'x' } } },
        '/data/attributes/appID',
      ],
      [
        'POST',
        '/admin/accounts',
        stack.admin,
        { data: { type: 'accounts', attributes: { name: 'X', plan: 'gold' } } },
        '/data/attributes/plan',
      ],
      [
        'POST',
        '/sandbox/clock',
        creds.headers,
        { data: { type: 'clock', attributes: { advanceSecond: 60 } } },
        '/data/attributes/advanceSecond',
      ],
      [
        'PUT',
        `/merchants/${merchantId}/avsMode`,
        creds.headers,
        { data: { type: 'merchants', attributes: { AVS: 'Strict', avs: 'Strict' } } },
        '/data/attributes/avs',
      ],
    ];
    for (const [method, path, headers, body, pointer] of cases) {
      expectError(await stack.call(method, path, { headers, body }), 400, 'unknown_field', pointer);
    }
    const clock = await stack.call('GET', '/sandbox/clock', { as: creds });
    expect(clock.body.data.attributes.offsetSeconds).toBe(0);
  });
});

describe('content type', () => {
  it('a body without Content-Type is a 415 and charges nothing', async () => {
    const before = await paymentRows();
    const res = await stack.call('POST', '/payments', {
      as: creds,
      raw: JSON.stringify(tokenv3Body({ merchantId, tokenId, requestId: newRequestId() })),
    });
    expectError(res, 415, 'unsupported_media_type');
    expect(await paymentRows()).toBe(before);
  });

  it('a body sent as text/plain is a 415; a bodiless action needs no Content-Type', async () => {
    const res = await stack.call('POST', '/payments', {
      as: creds,
      headers: { 'content-type': 'text/plain' },
      raw: JSON.stringify(tokenv3Body({ merchantId, tokenId })),
    });
    expectError(res, 415, 'unsupported_media_type');
    const hook = await stack.call('POST', '/webhooks', {
      as: creds,
      body: { data: { type: 'webhooks', attributes: { url: 'https://example.com/h', events: ['*'] } } },
    });
    expect(hook.status).toBe(201);
    const test = await stack.call('POST', `/webhooks/${hook.body.data.id}/rotate-secret`, { as: creds });
    expect(test.status).toBe(200);
  });
});

describe('UTF-8', () => {
  /** `text` with `é` written as the single Latin-1 byte E9, as a client with the wrong encoding sends it. */
  const latin1 = (text: string) => Buffer.from(text, 'latin1');

  it('a Latin-1 byte in a string is a 400 at that field, and nothing is stored', async () => {
    const before = await paymentRows();
    const json = JSON.stringify(
      tokenv3Body({ merchantId, tokenId, requestId: newRequestId(), attributes: { miscData: 'café' } }),
    );
    const res = await stack.call('POST', '/payments', {
      as: creds,
      headers: { 'content-type': 'application/json' },
      raw: latin1(json),
    });
    const error = expectError(res, 400, 'invalid_field', '/data/attributes/miscData');
    expect(error.detail).toBe('/data/attributes/miscData must be valid Unicode text');
    expect(await paymentRows()).toBe(before);
  });

  it('the same text sent as UTF-8 is stored as sent', async () => {
    const token = await createCardToken(stack, creds);
    const res = await postPayment(
      stack,
      creds,
      tokenv3Body({ merchantId, tokenId: token, attributes: { miscData: 'café ☕' } }),
    );
    expect(res.status).toBe(201);
    const read = await stack.call('GET', `/payments/${res.body.data.id}`, { as: creds });
    expect(read.body.data.attributes.miscData).toBe('café ☕');
  });

  it('a bad byte outside any string refuses the whole body', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"data":{"type":"customers","attributes":{"name":"A"}}'),
      Buffer.from([0xff]),
      Buffer.from('}'),
    ]);
    const res = await stack.call('POST', '/customers', {
      as: creds,
      headers: { 'content-type': 'application/json' },
      raw: bytes,
    });
    expectError(res, 400, 'invalid_field', '');
  });
});

describe('enum errors', () => {
  it('list every value the field takes, none cut short', async () => {
    const res = await stack.call('PUT', `/merchants/${merchantId}/payout-schedule`, {
      as: creds,
      body: { data: { type: 'merchants', attributes: { interval: 'yearly' } } },
    });
    const error = expectError(res, 400, 'invalid_field', '/data/attributes/interval');
    expect(error.detail).toBe('interval: must be one of "daily", "weekly", "monthly", "manual"');
    const list = await stack.call('GET', `/payments?id=${merchantId}&status=done`, { as: creds });
    const status = list.body.errors?.[0];
    expect(list.status).toBe(400);
    expect(status.detail).not.toContain('…');
    for (const value of ['authorized', 'pending', 'completed', 'failed', 'voided', 'partial_refund', 'refunded']) {
      expect(status.detail).toContain(`"${value}"`);
    }
  });
});
