import { testConfig } from '@pps/shared/config';
import { CHECKOUT_SESSION_MAX_TOKENS } from '@pps/shared/contract';
import { sha256Hex } from '@pps/shared/crypto';
import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { cards, createPayment, expiryIn, tokenv3Body } from '../fixtures/payments';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * Checkout sessions and the hosted form's card POST through the API, without a browser
 * (test/checkout/browser.slow.test.ts drives the form itself): every error path with its status, code and pointer, and
 * that refused requests store nothing.
 */

let stack: TestStack;
let acme: Credentials;
let globex: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  [acme, globex] = await Promise.all([stack.createAccount('Acme Platform'), stack.createAccount('Globex Platform')]);
});
afterAll(() => stack?.close());

const SHOP = 'https://shop.example.com';
const PAN = '4242424242424242';
const CODE = '919';

const sessionBody = (attributes: Record<string, unknown> = {}) => ({
  data: { type: 'checkoutSessions', attributes: { allowedOrigins: [SHOP], ...attributes } },
});

async function createSession(as: Credentials, attributes: Record<string, unknown> = {}) {
  const res = await stack.call('POST', '/checkout/sessions', { as, body: sessionBody(attributes) });
  if (res.status !== 201) throw new Error(`session creation failed: ${JSON.stringify(res.body)}`);
  return { id: res.body.data.id as string, secret: res.body.data.attributes.clientSecret as string, res };
}

const cardBody = (card: Record<string, unknown> = {}, attributes: Record<string, unknown> = {}) => ({
  data: {
    type: 'tokens',
    attributes: {
      tokenType: 'card',
      card: { holder: 'Jane Buyer', number: PAN, expiry: expiryIn(2), code: CODE, ...card },
      ...attributes,
    },
  },
});

/** The hosted form's POST, as the form sends it: the client secret in its header, nothing else. */
const postCard = (sessionId: string, secret: string | undefined, body: unknown = cardBody()) =>
  stack.call('POST', `/checkout/sessions/${sessionId}/tokens`, {
    headers: secret === undefined ? {} : { 'x-client-secret': secret },
    body,
  });

async function counts() {
  const [row] = await stack.sql<{ tokens: number; sessions: number; vaulted: number }[]>`
    select (select count(*)::int from tokens) as tokens,
           (select count(*)::int from checkout_sessions) as sessions,
           (select coalesce(sum(jsonb_array_length(token_ids)), 0)::int from checkout_sessions) as vaulted`;
  return row!;
}

/** Runs `act` and checks that no token, session or session token was stored meanwhile. */
async function storesNothing(act: () => Promise<unknown>) {
  const before = await counts();
  await act();
  expect(await counts()).toEqual(before);
}

const expireSession = (id: string) =>
  stack.sql`update checkout_sessions set expires_at = now() - interval '1 second' where id = ${id}`;

function expectNoCardData(res: ApiResponse) {
  const text = JSON.stringify(res.body);
  expect(text).not.toContain(PAN);
  // As a value of its own: three digits turn up by chance in timestamps' milliseconds and in ids.
  expect(text).not.toContain(`"${CODE}"`);
}

describe('POST /checkout/sessions', () => {
  it('creates a session: 201 with a cs_ id, a client secret shown once (only its hash stored), 15 minutes', async () => {
    const before = Date.now();
    const merchant = await createMerchant(stack, acme);
    const customer = (
      await stack.call('POST', '/customers', {
        as: acme,
        body: { data: { type: 'customers', attributes: { name: 'Ada Buyer' } } },
      })
    ).body.data.id;
    const { id, secret, res } = await createSession(acme, {
      allowedOrigins: ['https://shop.example.com/', 'http://localhost:3000', 'https://shop.example.com:443'],
      customerId: customer,
      merchantId: merchant,
    });
    expect(id).toMatch(/^cs_[0-9a-z]{26}$/);
    expect(secret).toMatch(/^cs_secret_[\w-]{43}$/);
    expect(res.body.links.self).toBe(`http://localhost:8080/checkout/sessions/${id}`);
    const attributes = res.body.data.attributes;
    expect(attributes).toMatchObject({
      status: 'open',
      allowedOrigins: [SHOP, 'http://localhost:3000'],
      customerId: customer,
      merchantId: merchant,
      maxTokens: CHECKOUT_SESSION_MAX_TOKENS,
      tokenIds: [],
    });
    const lifetime = new Date(attributes.expiresAt).getTime() - new Date(attributes.createdAt).getTime();
    expect(lifetime).toBe(15 * 60 * 1000);
    expect(new Date(attributes.createdAt).getTime()).toBeGreaterThanOrEqual(before - 5);

    const [row] = await stack.sql`select * from checkout_sessions where id = ${id}`;
    expect(row!.client_secret_hash).toBe(sha256Hex(secret));
    expect(JSON.stringify(row)).not.toContain(secret);

    const read = await stack.call('GET', `/checkout/sessions/${id}`, { as: acme });
    expect(read.status).toBe(200);
    expect(read.body.data.attributes.clientSecret).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(read.body.data.attributes).toMatchObject({ status: 'open', customerId: customer, merchantId: merchant });
  });

  it('refuses bad allowedOrigins, each with its pointer, and stores nothing', async () => {
    const bad = [
      'https://shop.example.com/checkout',
      'https://shop.example.com?x=1',
      'https://shop.example.com#top',
      'ftp://shop.example.com',
      '*',
      'null',
      'shop.example.com',
      'https://user:pw@shop.example.com',
      'https://Shop.Example.com',
      'javascript:alert(1)',
      'https://shop example.com',
    ];
    await storesNothing(async () => {
      const res = await stack.call('POST', '/checkout/sessions', {
        as: acme,
        body: sessionBody({ allowedOrigins: [SHOP, ...bad.slice(0, 9)] }),
      });
      expect(res.status).toBe(400);
      for (let index = 1; index <= 9; index++) {
        expectError(res, 400, 'invalid_origin', `/data/attributes/allowedOrigins/${index}`);
      }
      expect(res.body.errors).toHaveLength(9);
      const rest = await stack.call('POST', '/checkout/sessions', {
        as: acme,
        body: sessionBody({ allowedOrigins: bad.slice(9) }),
      });
      expectError(rest, 400, 'invalid_origin', '/data/attributes/allowedOrigins/0');
      expectError(rest, 400, 'invalid_origin', '/data/attributes/allowedOrigins/1');
      expectError(
        await stack.call('POST', '/checkout/sessions', { as: acme, body: sessionBody({ allowedOrigins: [] }) }),
        400,
        'invalid_field',
        '/data/attributes/allowedOrigins',
      );
      const eleven = Array.from({ length: 11 }, (_, index) => `https://shop${index}.example.com`);
      expectError(
        await stack.call('POST', '/checkout/sessions', { as: acme, body: sessionBody({ allowedOrigins: eleven }) }),
        400,
        'invalid_field',
        '/data/attributes/allowedOrigins',
      );
      expectError(
        await stack.call('POST', '/checkout/sessions', {
          as: acme,
          body: { data: { type: 'checkoutSessions', attributes: {} } },
        }),
        400,
        'missing_field',
        '/data/attributes/allowedOrigins',
      );
      expectError(
        await stack.call('POST', '/checkout/sessions', {
          as: acme,
          body: { data: { type: 'tokens', attributes: { allowedOrigins: [SHOP] } } },
        }),
        400,
        'invalid_field',
        '/data/type',
      );
    });
  });

  it("refuses another account's or an unknown customer or merchant: 404/403 with the pointer, nothing stored", async () => {
    const theirMerchant = await createMerchant(stack, globex);
    const theirCustomer = (
      await stack.call('POST', '/customers', {
        as: globex,
        body: { data: { type: 'customers', attributes: { name: 'Not Yours' } } },
      })
    ).body.data.id;
    await storesNothing(async () => {
      const post = (attributes: Record<string, unknown>) =>
        stack.call('POST', '/checkout/sessions', { as: acme, body: sessionBody(attributes) });
      expectError(
        await post({ customerId: 'cus_01m84s8mm30dq9f8h3tyg5r7b5' }),
        404,
        'customer_not_found',
        '/data/attributes/customerId',
      );
      expectError(await post({ customerId: 'nope' }), 404, 'customer_not_found', '/data/attributes/customerId');
      expectError(await post({ customerId: theirCustomer }), 403, 'customer_forbidden', '/data/attributes/customerId');
      expectError(
        await post({ merchantId: 'mer_01m84s8mm30m76sqb4t01v6bw9' }),
        404,
        'merchant_not_found',
        '/data/attributes/merchantId',
      );
      expectError(await post({ merchantId: theirMerchant }), 403, 'merchant_forbidden', '/data/attributes/merchantId');
    });
  });

  it('needs the four headers', async () => {
    await storesNothing(async () => {
      expectError(
        await stack.call('POST', '/checkout/sessions', { body: sessionBody() }),
        401,
        'missing_authorization',
      );
    });
  });
});

describe('GET /checkout/sessions/{id}', () => {
  it("is 404 for an unknown or malformed id and 403 for another account's", async () => {
    const { id } = await createSession(globex);
    expectError(await stack.call('GET', `/checkout/sessions/${id}`, { as: acme }), 403, 'checkout_session_forbidden');
    expectError(
      await stack.call('GET', '/checkout/sessions/cs_01m84s8mm30dq9f8h3tyg5r7b5', { as: acme }),
      404,
      'checkout_session_not_found',
    );
    expectError(await stack.call('GET', '/checkout/sessions/x%20y', { as: acme }), 404, 'checkout_session_not_found');
  });
});

describe('POST /checkout/sessions/{id}/tokens (the hosted form)', () => {
  it("vaults the card exactly as POST /tokens (for the session's customer), and a tokenv3 payment with it succeeds", async () => {
    const merchant = await createMerchant(stack, acme);
    const customer = (
      await stack.call('POST', '/customers', {
        as: acme,
        body: { data: { type: 'customers', attributes: { name: 'Checkout Buyer' } } },
      })
    ).body.data.id;
    const { id, secret } = await createSession(acme, { customerId: customer, merchantId: merchant });
    const res = await postCard(id, secret, cardBody({ number: '4242 4242-4242 4242' }, { label: 'Work card' }));
    expect(res.status).toBe(201);
    expectNoCardData(res);
    const tokenId = res.body.data.id;
    expect(tokenId).toMatch(/^tok_/);
    expect(res.body.data.attributes).toMatchObject({
      tokenType: 'card',
      label: 'Work card',
      customerId: customer,
      card: { brand: 'visa', last4: '4242', expiry: expiryIn(2), holder: 'Jane Buyer' },
    });
    // The account sees the token as any other (the number encrypted, no security code anywhere).
    const token = await stack.call('GET', `/tokens/${tokenId}`, { as: acme });
    expect(token.body.data).toEqual(res.body.data);
    const [row] = await stack.sql`select * from tokens where id = ${tokenId}`;
    expect(row!.pan_enc).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(PAN);
    expect(JSON.stringify(row)).not.toContain(`"${CODE}"`);
    const session = await stack.call('GET', `/checkout/sessions/${id}`, { as: acme });
    expect(session.body.data.attributes.tokenIds).toEqual([tokenId]);
    // Another account cannot use it.
    expectError(await stack.call('GET', `/tokens/${tokenId}`, { as: globex }), 403, 'token_forbidden');

    const payment = await createPayment(stack, acme, tokenv3Body({ merchantId: merchant, tokenId }));
    expect(payment.body.data.attributes).toMatchObject({
      status: 'pending',
      card: { brand: 'visa', last4: '4242' },
      transaction: { code: '0', amount: '1000' },
    });
  });

  it('gives the same field errors and pointers as POST /tokens, and stores nothing', async () => {
    const { id, secret } = await createSession(acme);
    const bodies = [
      cardBody({ number: '4242424242424241' }),
      cardBody({ number: '42424242' }),
      cardBody({ expiry: '1322' }),
      cardBody({ expiry: '0120' }),
      cardBody({ code: '12' }),
      cardBody({ number: '378282246310005', code: '123' }),
      cardBody({ holder: '' }),
      cardBody({ number: '4242424242424241', expiry: '13/30', code: 'abc', holder: undefined }),
    ];
    await storesNothing(async () => {
      for (const body of bodies) {
        const viaForm = await postCard(id, secret, body);
        const direct = await stack.call('POST', '/tokens', { as: acme, body });
        expect(viaForm.status, JSON.stringify(body)).toBe(400);
        expectNoCardData(viaForm);
        const shape = (res: ApiResponse) =>
          res.body.errors.map((error: { code: string; source?: unknown; detail: string }) => [
            error.code,
            error.source,
            error.detail,
          ]);
        expect(shape(viaForm)).toEqual(shape(direct));
      }
      expectError(await postCard(id, secret, bodies[0]), 400, 'invalid_card_number', '/data/attributes/card/number');
      expectError(await postCard(id, secret, bodies[3]), 400, 'card_expired', '/data/attributes/card/expiry');
      expectError(await postCard(id, secret, bodies[5]), 400, 'invalid_security_code', '/data/attributes/card/code');
      const many = await postCard(id, secret, bodies[7]);
      expectError(many, 400, 'invalid_card_number', '/data/attributes/card/number');
      expectError(many, 400, 'invalid_expiry', '/data/attributes/card/expiry');
      expectError(many, 400, 'invalid_security_code', '/data/attributes/card/code');
      expectError(many, 400, 'missing_field', '/data/attributes/card/holder');
      expectError(
        await stack.call('POST', `/checkout/sessions/${id}/tokens`, {
          headers: { 'x-client-secret': secret, 'content-type': 'text/plain' },
          raw: 'number=4242424242424242',
        }),
        415,
        'unsupported_media_type',
      );
    });
  });

  it('refuses a missing or wrong client secret, and an unknown session, before reading the body', async () => {
    const { id, secret } = await createSession(acme);
    const theirs = await createSession(globex);
    await storesNothing(async () => {
      expectError(await postCard(id, undefined), 401, 'missing_client_secret');
      expectError(await postCard(id, ''), 401, 'missing_client_secret');
      expectError(await postCard(id, `${secret}x`), 401, 'invalid_client_secret');
      expectError(await postCard(id, 'cs_secret_guess'), 401, 'invalid_client_secret');
      // Another session's secret, of another account (and the other way round).
      expectError(await postCard(id, theirs.secret), 401, 'invalid_client_secret');
      expectError(await postCard(theirs.id, secret), 401, 'invalid_client_secret');
      // An app's credentials are no client secret.
      const withToken = await stack.call('POST', `/checkout/sessions/${id}/tokens`, { as: acme, body: cardBody() });
      expectError(withToken, 401, 'missing_client_secret');
      expectError(await postCard('cs_01m84s8mm30dq9f8h3tyg5r7b5', secret), 404, 'checkout_session_not_found');
      expectError(await postCard('..%2F..%2Ftokens', secret), 404, 'checkout_session_not_found');
      // Credentials first: a stranger's broken body is a 401, not a 400.
      expectError(
        await stack.call('POST', `/checkout/sessions/${id}/tokens`, { headers: { 'x-client-secret': 'x' }, raw: '{' }),
        401,
        'invalid_client_secret',
      );
    });
  });

  it('refuses an expired session: 422 checkout_session_expired, nothing stored; the session reads expired', async () => {
    const { id, secret } = await createSession(acme);
    await expireSession(id);
    await storesNothing(async () => {
      expectError(await postCard(id, secret), 422, 'checkout_session_expired');
    });
    expect((await stack.call('GET', `/checkout/sessions/${id}`, { as: acme })).body.data.attributes.status).toBe(
      'expired',
    );
  });

  it(`makes at most ${CHECKOUT_SESSION_MAX_TOKENS} tokens per session, even when they are asked for at once`, async () => {
    const { id, secret } = await createSession(acme);
    const numbers = [cards.visa, cards.visa2, cards.mastercard, '6011111111111117', '4000000000000010'];
    const answers = await Promise.all(
      [...numbers, cards.avsZ, cards.avsA].map((number) => postCard(id, secret, cardBody({ number }))),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 201, 422, 422]);
    for (const res of answers.filter((answer) => answer.status === 422)) {
      expectError(res, 422, 'checkout_session_token_limit');
    }
    await storesNothing(async () => {
      expectError(await postCard(id, secret), 422, 'checkout_session_token_limit');
    });
    const session = await stack.call('GET', `/checkout/sessions/${id}`, { as: acme });
    expect(session.body.data.attributes.status).toBe('complete');
    expect(session.body.data.attributes.tokenIds).toHaveLength(CHECKOUT_SESSION_MAX_TOKENS);
    const [{ n }] = (await stack.sql`select count(*)::int as n from tokens where id in ${stack.sql(
      session.body.data.attributes.tokenIds,
    )}`) as unknown as [{ n: number }];
    expect(n).toBe(CHECKOUT_SESSION_MAX_TOKENS);
  });

  it("refuses a disabled account's session: 403 account_disabled", async () => {
    const doomed = await stack.createAccount('Doomed Platform');
    const { id, secret } = await createSession(doomed);
    const disabled = await stack.call('PUT', `/admin/accounts/${doomed.accountId}`, {
      headers: stack.admin,
      body: { data: { type: 'accounts', attributes: { status: 'disabled' } } },
    });
    expect(disabled.status).toBe(200);
    await storesNothing(async () => {
      expectError(await postCard(id, secret), 403, 'account_disabled');
    });
  });
});

describe('the hosted form and checkout.js', () => {
  it("serves the form with a CSP framed only by the session's origins, its own script, and no inline script", async () => {
    const { id, secret } = await createSession(acme, { allowedOrigins: [SHOP, 'http://127.0.0.1:5173'] });
    const res = await stack.gateway.request(`/checkout/frame/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain(`frame-ancestors ${SHOP} http://127.0.0.1:5173`);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBeNull();
    const html = await res.text();
    expect(html).not.toContain(secret);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\/checkout\/assets\/frame\.js"/);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+=/i); // no inline event handlers
    expect(html).not.toMatch(/<input[^>]*\sname=/); // nothing a native submission could send
    for (const field of ['holder', 'number', 'expiry', 'code']) {
      expect(html).toMatch(new RegExp(`<label for="${field}">`));
      expect(html).toMatch(new RegExp(`id="${field}"[^>]*aria-describedby="[^"]*${field}-error`));
      expect(html).toMatch(new RegExp(`id="${field}-error"[^>]*aria-live="polite"`));
    }
    const script = await stack.gateway.request('/checkout/assets/frame.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await stack.gateway.request('/checkout/assets/frame.css')).status).toBe(200);
    expect((await stack.gateway.request('/checkout/assets/checkout.js')).status).toBe(404);
    expect((await stack.gateway.request('/checkout/assets/..%2Fcheckout.routes.ts')).status).toBe(404);
  });

  it('answers an unknown session with a JSON:API 404 nobody may frame, and an expired one with the form saying so', async () => {
    const unknown = await stack.gateway.request('/checkout/frame/cs_01m84s8mm30dq9f8h3tyg5r7b5');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await unknown.json()).errors[0].code).toBe('checkout_session_not_found');
    expect((await stack.gateway.request('/checkout/frame/%3Cscript%3E')).status).toBe(404);
    const { id } = await createSession(acme);
    await expireSession(id);
    const expired = await stack.gateway.request(`/checkout/frame/${id}`);
    expect(expired.status).toBe(200);
    const html = await expired.text();
    expect(html).toContain('data-state="expired"');
    expect(html).toContain('This checkout session has expired');
  });

  it('serves checkout.js to any origin', async () => {
    const res = await stack.gateway.request('/checkout.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.text()).toContain('window.mountCheckout = mountCheckout');
  });
});

describe('per-address protection of the public checkout routes', () => {
  const redis = new Redis(testConfig().REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
  });
  let limited: TestStack;

  beforeAll(async () => {
    await redis.connect();
    limited = await createTestStack({ redis, env: { AUTH_FAILURE_LIMIT: '3', CHECKOUT_ADDRESS_LIMIT: '12' } });
  });
  afterAll(async () => {
    await limited?.close();
    redis.disconnect();
  });

  it('counts wrong client secrets as failed authentications, and every request per address', async () => {
    const creds = await limited.createAccount('Limited Platform');
    const created = await limited.call('POST', '/checkout/sessions', { as: creds, body: sessionBody() });
    const { id } = created.body.data;
    const secret = created.body.data.attributes.clientSecret;
    const post = (value: string) =>
      limited.call('POST', `/checkout/sessions/${id}/tokens`, {
        headers: { 'x-client-secret': value },
        body: cardBody(),
      });
    for (let attempt = 0; attempt < 3; attempt++) expectError(await post('wrong'), 401, 'invalid_client_secret');
    // The address is blocked for the minute, the right secret included.
    const blocked = await post(secret);
    expectError(blocked, 429, 'too_many_failed_authentications');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // 4 POSTs so far; the form and the scripts count too, up to 12 a minute.
    const answers: number[] = [];
    for (let request = 0; request < 9; request++) {
      answers.push((await limited.gateway.request(request % 2 ? '/checkout.js' : `/checkout/frame/${id}`)).status);
    }
    expect(answers).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    const refused = await limited.call('GET', `/checkout/frame/${id}`);
    expectError(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toBeTruthy();
    const [{ n }] = (await limited.sql`select count(*)::int as n from tokens`) as unknown as [{ n: number }];
    expect(n).toBe(0);
  });
});
