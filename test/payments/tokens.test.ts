import { createPaymentsApp } from '@pps/payments/app';
import { signInternal } from '@pps/shared/http';
import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataCipher } from '../../services/payments/src/tokens/tokens.repository';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let acme: Credentials;
let globex: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  acme = await stack.createAccount('Acme Platform');
  globex = await stack.createAccount('Globex Platform');
});
afterAll(() => stack.close());

const PAN = '4111111111111111';
const CODE = '737';
const base = 'http://localhost:8080';
const pointer = (path: string) => `/data/attributes/${path}`;

const card = (overrides: Record<string, unknown> = {}) => ({
  holder: 'Jane Doe',
  number: PAN,
  expiry: '1230',
  code: CODE,
  ...overrides,
});

const tokenBody = (attributes: Record<string, unknown> = {}) => ({
  data: { type: 'tokens', attributes: { tokenType: 'card', card: card(), ...attributes } },
});

const createToken = (as: Credentials, attributes: Record<string, unknown> = {}) =>
  stack.call('POST', '/tokens', { as, body: tokenBody(attributes) });

async function createCustomer(as: Credentials, attributes: Record<string, unknown> = {}): Promise<string> {
  const res = await stack.call('POST', '/customers', {
    as,
    body: { data: { type: 'customers', attributes: { name: 'Ada Lovelace', ...attributes } } },
  });
  if (res.status !== 201) throw new Error(`customer creation failed: ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

/**
 * The card number (grouped or not) and security code never appear in a response. A three-digit code is looked for
 * as a value of its own: as a substring it turns up by chance in timestamps' milliseconds and in ids.
 */
function expectNoSecrets(res: ApiResponse, secrets: string[] = [PAN, CODE]) {
  const text = JSON.stringify(res.body);
  for (const secret of secrets) expect(text).not.toContain(secret.length > 4 ? secret : `"${secret}"`);
}

describe('POST /tokens', () => {
  it('vaults a card: 201 with brand, last four, expiry and holder only', async () => {
    const billingAddress = {
      line1: '1 Market St',
      line2: 'Suite 5',
      city: 'San Francisco',
      state: 'CA',
      zip: '94105',
      country: 'USA',
    };
    const res = await createToken(acme, { billingAddress, label: 'Work card' });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    expect(id).toMatch(/^tok_[0-9a-z]{26}$/);
    expect(res.body).toEqual({
      links: { self: `${base}/tokens/${id}` },
      data: {
        type: 'tokens',
        id,
        attributes: {
          tokenType: 'card',
          label: 'Work card',
          customerId: null,
          card: { brand: 'visa', last4: '1111', expiry: '1230', holder: 'Jane Doe' },
          billingAddress,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
      },
    });
    expectNoSecrets(res);
  });

  it('stores the number encrypted, never the security code', async () => {
    const res = await createToken(acme, { card: card({ code: '9182' }) });
    expect(res.status).toBe(201);
    const [row] = await stack.sql`select * from tokens where id = ${res.body.data.id}`;
    expect(row).toBeDefined();
    const text = JSON.stringify(row);
    expect(text).not.toContain(PAN);
    expect(text).not.toContain('9182');
    expect(row!.last4).toBe('1111');
    expect(row!.brand).toBe('visa');
    expect(row!.account_id).toBe(acme.accountId);
    expect(String(row!.pan_enc)).toMatch(/^v1\./);
    expect(createDataCipher(stack.config).decrypt(row!.pan_enc)).toBe(PAN);
  });

  it('takes grouped digits and detects every brand', async () => {
    const cases = [
      ['4242 4242 4242 4242', 'visa', '4242', '123'],
      ['5555-5555-5555-4444', 'mastercard', '4444', '123'],
      ['2223003122003222', 'mastercard', '3222', '123'],
      ['3782 822463 10005', 'amex', '0005', '1234'],
      ['6011111111111117', 'discover', '1117', '123'],
      ['3530111333300000', 'unknown', '0000', '123'],
    ] as const;
    for (const [number, brand, last4, code] of cases) {
      const res = await createToken(acme, { card: card({ number, code }) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.data.attributes.card).toMatchObject({ brand, last4 });
      expectNoSecrets(res, [number.replace(/\D/g, ''), number]);
    }
  });

  it('keeps a card valid through the end of its expiry month', async () => {
    const now = new Date();
    const mmyy = `${String(now.getUTCMonth() + 1).padStart(2, '0')}${String(now.getUTCFullYear() % 100).padStart(2, '0')}`;
    const res = await createToken(acme, { card: card({ expiry: mmyy }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it('judges expiry by the account’s sandbox clock, valid until its month is over', async () => {
    const traveller = await stack.createAccount('Time Traveller');
    const moveClock = (time: string) =>
      stack.call('POST', '/sandbox/clock', { as: traveller, body: { data: { type: 'clock', attributes: { time } } } });
    expect((await moveClock('2030-06-30T23:59:50.000Z')).status).toBe(200);
    expect((await createToken(traveller, { card: card({ expiry: '0630' }) })).status).toBe(201);
    expect((await moveClock('2030-07-01T00:00:05.000Z')).status).toBe(200);
    expectError(
      await createToken(traveller, { card: card({ expiry: '0630' }) }),
      400,
      'card_expired',
      pointer('card/expiry'),
    );
    const created = await createToken(traveller, { card: card({ expiry: '0730' }) });
    expect(created.body.data.attributes.createdAt).toMatch(/^2030-07-01T/);
  });

  it('answers without optional parts as nulls', async () => {
    const res = await createToken(acme);
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ label: null, customerId: null, billingAddress: null });
  });

  it('links the token to a customer of the account', async () => {
    const customerId = await createCustomer(acme);
    const res = await createToken(acme, { customerId });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.customerId).toBe(customerId);
  });
});

describe('POST /tokens validation', () => {
  const invalidNumbers = [
    ['fails Luhn', '4111111111111112'],
    ['too short', '41111111111'],
    ['too long', '41111111111111111113'],
    ['has letters', '4111abcd11111111'],
    ['is empty', ''],
  ];
  for (const [why, number] of invalidNumbers) {
    it(`400 invalid_card_number when the number ${why}`, async () => {
      const res = await createToken(acme, { card: card({ number }) });
      expectError(res, 400, 'invalid_card_number', pointer('card/number'));
      expect(res.body.errors).toHaveLength(1);
      expectNoSecrets(res, [CODE, ...(number ? [number] : [])]);
    });
  }

  for (const expiry of ['1330', '0030', '12/30', '123', '12300', 'ab30']) {
    it(`400 invalid_expiry for a malformed expiry ${expiry}`, async () => {
      expectError(await createToken(acme, { card: card({ expiry }) }), 400, 'invalid_expiry', pointer('card/expiry'));
    });
  }

  it('400 card_expired for an expiry month in the past', async () => {
    const res = await createToken(acme, { card: card({ expiry: '0120' }) });
    expectError(res, 400, 'card_expired', pointer('card/expiry'));
  });

  for (const code of ['12', '12345', 'abc', '', '1 23']) {
    it(`400 invalid_security_code for code "${code}"`, async () => {
      const res = await createToken(acme, { card: card({ code }) });
      expectError(res, 400, 'invalid_security_code', pointer('card/code'));
    });
  }

  it('400 invalid_security_code for a 3-digit American Express code', async () => {
    const res = await createToken(acme, { card: card({ number: '378282246310005', code: '123' }) });
    expectError(res, 400, 'invalid_security_code', pointer('card/code'));
  });

  it('400 customer_not_found for an unknown customer or another account’s', async () => {
    expectError(
      await createToken(acme, { customerId: 'cus_0000000000000000000000000a' }),
      400,
      'customer_not_found',
      pointer('customerId'),
    );
    const theirs = await createCustomer(globex);
    expectError(await createToken(acme, { customerId: theirs }), 400, 'customer_not_found', pointer('customerId'));
  });

  it('lists every invalid field at once, each with its pointer', async () => {
    const res = await stack.call('POST', '/tokens', {
      as: acme,
      body: {
        data: {
          type: 'tokens',
          attributes: {
            tokenType: 'bank',
            card: { number: '1234', expiry: '99', code: 'x' },
            billingAddress: { zip: 94105 },
          },
        },
      },
    });
    expectError(res, 400, 'invalid_field', pointer('tokenType'));
    expectError(res, 400, 'missing_field', pointer('card/holder'));
    expectError(res, 400, 'invalid_card_number', pointer('card/number'));
    expectError(res, 400, 'invalid_expiry', pointer('card/expiry'));
    expectError(res, 400, 'invalid_security_code', pointer('card/code'));
    expectError(res, 400, 'invalid_field', pointer('billingAddress/zip'));
    expect(res.body.errors).toHaveLength(6);
  });

  it('reports the clock and database checks together', async () => {
    const res = await createToken(acme, {
      card: card({ expiry: '0120' }),
      customerId: 'cus_0000000000000000000000000a',
    });
    expectError(res, 400, 'card_expired', pointer('card/expiry'));
    expectError(res, 400, 'customer_not_found', pointer('customerId'));
  });

  it('400 for a missing card, a wrong data.type, and a body that is not JSON', async () => {
    expectError(
      await stack.call('POST', '/tokens', {
        as: acme,
        body: { data: { type: 'tokens', attributes: { tokenType: 'card' } } },
      }),
      400,
      'missing_field',
      pointer('card'),
    );
    expectError(
      await stack.call('POST', '/tokens', {
        as: acme,
        body: { data: { type: 'cards', attributes: tokenBody().data.attributes } },
      }),
      400,
      'invalid_field',
      '/data/type',
    );
    expectError(
      await stack.call('POST', '/tokens', {
        as: acme,
        raw: '{"data":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'malformed_json',
    );
  });

  it('refuses unknown attributes, each at its pointer', async () => {
    const res = await createToken(acme, { color: 'blue', card: { ...card(), nickname: 'x' } });
    expectError(res, 400, 'unknown_field', '/data/attributes/color');
    expectError(res, 400, 'unknown_field', '/data/attributes/card/nickname');
  });

  it('401 without credentials', async () => {
    const res = await stack.call('POST', '/tokens', { body: tokenBody() });
    expect(res.status).toBe(401);
  });
});

describe('GET /tokens/{id}', () => {
  it('returns the token as created, without the number', async () => {
    const created = await createToken(acme, { label: 'Again' });
    const res = await stack.call('GET', `/tokens/${created.body.data.id}`, { as: acme });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    expectNoSecrets(res);
  });

  it('404 token_not_found for an unknown or malformed id', async () => {
    expectError(
      await stack.call('GET', '/tokens/tok_0000000000000000000000000a', { as: acme }),
      404,
      'token_not_found',
    );
    expectError(await stack.call('GET', '/tokens/nope', { as: acme }), 404, 'token_not_found');
  });

  it('403 for another account’s token', async () => {
    const theirs = await createToken(globex);
    expectError(await stack.call('GET', `/tokens/${theirs.body.data.id}`, { as: acme }), 403, 'token_forbidden');
  });
});

describe('GET /tokens', () => {
  let lister: Credentials;
  let customerId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    lister = await stack.createAccount('Lister');
    customerId = await createCustomer(lister);
    for (let i = 0; i < 5; i++) {
      const res = await createToken(lister, { label: `card ${i}`, ...(i % 2 === 0 ? { customerId } : {}) });
      ids.push(res.body.data.id);
    }
    await createToken(globex);
  });

  it('lists the account’s tokens newest first with the list envelope', async () => {
    const res = await stack.call('GET', '/tokens', { as: lister });
    expect(res.status).toBe(200);
    expect(res.body.data.map((token: { id: string }) => token.id)).toEqual([...ids].reverse());
    expect(res.body.meta).toEqual({ total: 5, limit: 25, offset: 0, hasMore: false });
    expect(res.body.links).toEqual({ self: `${base}/tokens`, next: null });
    expectNoSecrets(res);
  });

  it('pages with limit and offset', async () => {
    const first = await stack.call('GET', '/tokens?limit=2', { as: lister });
    expect(first.body.data.map((token: { id: string }) => token.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.meta).toEqual({ total: 5, limit: 2, offset: 0, hasMore: true });
    expect(first.body.links.next).toBe(`${base}/tokens?limit=2&startingAfter=${ids[3]}`);
    const last = await stack.call('GET', '/tokens?limit=2&offset=4', { as: lister });
    expect(last.body.data.map((token: { id: string }) => token.id)).toEqual([ids[0]]);
    expect(last.body.meta).toEqual({ total: 5, limit: 2, offset: 4, hasMore: false });
    expect(last.body.links.next).toBeNull();
  });

  it('filters by customer', async () => {
    const res = await stack.call('GET', `/tokens?customerId=${customerId}`, { as: lister });
    expect(res.body.data.map((token: { id: string }) => token.id)).toEqual([ids[4], ids[2], ids[0]]);
    expect(res.body.meta.total).toBe(3);
    expect(res.body.links.self).toBe(`${base}/tokens?customerId=${customerId}`);
  });

  it('400 for an unknown customer filter, 403 for another account’s', async () => {
    const unknown = await stack.call('GET', '/tokens?customerId=cus_0000000000000000000000000a', { as: lister });
    expectError(unknown, 400, 'customer_not_found');
    expect(unknown.body.errors[0].source).toEqual({ parameter: 'customerId' });
    const theirs = await createCustomer(globex);
    expectError(await stack.call('GET', `/tokens?customerId=${theirs}`, { as: lister }), 403, 'customer_forbidden');
  });

  it('400 for pagination out of range', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'offset=1.5']) {
      const res = await stack.call('GET', `/tokens?${query}`, { as: lister });
      expectError(res, 400, 'invalid_field');
      expect(res.body.errors[0].source).toEqual({ parameter: query.split('=')[0] });
    }
  });
});

describe('logs', () => {
  it('never carry the card number or the security code', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'trace', destination: { write: (line: string) => lines.push(line) } });
    const app = createPaymentsApp({ config: stack.config, db: stack.db, log });
    const send = (body: unknown) => {
      const caller = { accountId: acme.accountId, appId: acme.appId, clockOffsetSeconds: 0, requestId: 'req_logs' };
      const headers = {
        ...signInternal(stack.config.INTERNAL_SECRET, caller, 'POST', '/tokens'),
        'content-type': 'application/json',
      };
      return app.request('/tokens', { method: 'POST', headers, body: JSON.stringify(body) });
    };
    expect((await send(tokenBody())).status).toBe(201);
    expect((await send(tokenBody({ card: card({ number: '4111111111111112' }) }))).status).toBe(400);
    expect((await send(tokenBody({ card: card({ expiry: '0120' }) }))).status).toBe(400);
    const text = lines.join('');
    expect(text).toContain('card vaulted');
    for (const secret of [PAN, '4111111111111112', CODE]) expect(text).not.toContain(secret);
  });
});
