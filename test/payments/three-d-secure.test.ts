import { startSettlement } from '@pps/settlement';
import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  achBody,
  captureBody,
  createCardToken,
  createPayment,
  newRequestId,
  postPayment,
  refundBody,
  setClock,
  tokenv3Body,
} from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * 3-D Secure in the sandbox (docs/api.md, 3-D Secure): each card's flow through the API and the hosted challenge
 * page (a plain form, driven here as a browser without script would), the answers it redirects with, every refusal
 * with its status, code and pointer and nothing changed by it, and the abandonment by each account's clock.
 */
const CHALLENGE = '4000002760003184';
const FRICTIONLESS = '4000000000003055';
const DECLINED_AFTER_CHALLENGE = '4000008400001629';
const NOT_ENROLLED = '4242424242424242';
const FRAUD_DISPUTE = '4000000000000259';
const RETURN_URL = 'https://shop.example.com/done?order=42';

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  stack = await createTestStack({ settlement: true, log: createLogger({ level: 'error' }) });
  ({ creds, other, merchantId } = await createWorld(stack, { account: 'Shop', other: 'Elsewhere', token: false }));
  for (const number of [CHALLENGE, FRICTIONLESS, DECLINED_AFTER_CHALLENGE, NOT_ENROLLED, FRAUD_DISPUTE]) {
    tokens[number] = await createCardToken(stack, creds, number);
  }
});
afterAll(() => stack?.close());

type Mode = 'automatic' | 'challenge';
const bodyFor = (number: string, options: { mode?: Mode; capture?: false; requestId?: string; amount?: string } = {}) =>
  tokenv3Body({
    merchantId,
    tokenId: tokens[number] as string,
    amount: options.amount ?? '2500',
    requestId: options.requestId,
    attributes: {
      ...(options.mode ? { authentication: { mode: options.mode, returnUrl: RETURN_URL } } : {}),
      ...(options.capture === false ? { capture: false } : {}),
    },
  });
const pay = async (number: string, options: Parameters<typeof bodyFor>[1] = {}) =>
  (await createPayment(stack, creds, bodyFor(number, options))).body.data;
const get = async (id: string) => (await stack.call('GET', `/payments/${id}`, { as: creds })).body.data;
const eventsOf = async (id: string) =>
  (await stack.sql`select type, payload from events where resource_id = ${id} order by sequence`).map((row) => ({
    type: row.type as string,
    previousStatus: (row.payload as { data: { previousStatus: string | null } }).data.previousStatus,
  }));
const ledgerOf = (id: string) => stack.sql`select kind, amount::int from ledger_entries where payment_id = ${id}`;
const tokenOf = (payment: { attributes: { nextAction: { url: string } } }) =>
  new URL(payment.attributes.nextAction.url).searchParams.get('token') as string;

/** The challenge page as a browser opens it: its status and HTML. */
async function openPage(token: string) {
  const response = await stack.gateway.request(`/3ds/challenge?token=${encodeURIComponent(token)}`);
  return { status: response.status, html: await response.text(), headers: response.headers };
}
/** The page's form submitted with one of its buttons: the status and where it sends the browser. */
async function submit(token: string, outcome: 'completed' | 'failed') {
  const response = await stack.gateway.request('/3ds/challenge', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, outcome }).toString(),
    redirect: 'manual',
  });
  const location = response.headers.get('location');
  return { status: response.status, location: location ? new URL(location) : null, html: await response.text() };
}

describe('a card that requires a challenge', () => {
  it('is created requires_action with its challenge link; nothing is authorized or posted', async () => {
    const payment = await pay(CHALLENGE, { mode: 'automatic' });
    expect(payment.attributes.status).toBe('requires_action');
    expect(payment.attributes.nextAction).toEqual({
      type: 'redirect',
      url: expect.stringMatching(/\/3ds\/challenge\?token=tds_/),
    });
    expect(payment.attributes.threeDSecure).toEqual({ flow: 'challenge', result: null, version: '2.2.0', eci: null });
    expect(payment.attributes.transaction.authCode).toBeNull();
    expect(await ledgerOf(payment.id)).toEqual([]);
    expect(await eventsOf(payment.id)).toEqual([{ type: 'payment.requires_action', previousStatus: null }]);
    expect((await get(payment.id)).attributes.nextAction).toEqual(payment.attributes.nextAction);
  });

  it('completed on the page: authorized and captured, then back to the shop with its id and status', async () => {
    const payment = await pay(CHALLENGE, { mode: 'automatic' });
    const page = await openPage(tokenOf(payment));
    expect(page.status).toBe(200);
    expect(page.html).toContain('Complete');
    expect(page.html).toContain('Fail');
    expect(page.html).toContain('$25.00 USD');
    expect(page.html).not.toContain('<script');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://shop.example.com");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');

    const answered = await submit(tokenOf(payment), 'completed');
    expect(answered.status).toBe(303);
    expect(`${answered.location?.origin}${answered.location?.pathname}`).toBe('https://shop.example.com/done');
    expect(Object.fromEntries(answered.location?.searchParams ?? [])).toEqual({
      order: '42',
      paymentId: payment.id,
      status: 'pending',
    });
    const done = await get(payment.id);
    expect(done.attributes.status).toBe('pending');
    expect(done.attributes.nextAction).toBeUndefined();
    expect(done.attributes.threeDSecure).toEqual({
      flow: 'challenge',
      result: 'authenticated',
      version: '2.2.0',
      eci: '05',
    });
    expect(done.attributes.transaction.authCode).toMatch(/^[A-Z0-9]{6}$/);
    expect((await ledgerOf(payment.id)).length).toBeGreaterThan(0);
    expect(await eventsOf(payment.id)).toEqual([
      { type: 'payment.requires_action', previousStatus: null },
      { type: 'payment.created', previousStatus: 'requires_action' },
    ]);
  });

  it('failed on the page: failed authentication_failed, nothing posted', async () => {
    const payment = await pay(CHALLENGE, { mode: 'automatic' });
    const answered = await submit(tokenOf(payment), 'failed');
    expect(answered.status).toBe(303);
    expect(answered.location?.searchParams.get('status')).toBe('failed');
    const done = await get(payment.id);
    expect(done.attributes.status).toBe('failed');
    expect(done.attributes.transaction.code).toBe('authentication_failed');
    expect(done.attributes.threeDSecure.result).toBe('failed');
    expect(await ledgerOf(payment.id)).toEqual([]);
    expect((await eventsOf(payment.id)).map((event) => event.type)).toEqual([
      'payment.requires_action',
      'payment.failed',
    ]);
  });

  it('with capture: false, completed: authorized, nothing posted yet', async () => {
    const payment = await pay(CHALLENGE, { mode: 'automatic', capture: false });
    expect((await submit(tokenOf(payment), 'completed')).location?.searchParams.get('status')).toBe('authorized');
    const done = await get(payment.id);
    expect(done.attributes.status).toBe('authorized');
    expect(done.attributes.authorizationExpiresAt).toBeDefined();
    expect(await ledgerOf(payment.id)).toEqual([]);
  });

  it('without authentication: declined authentication_required (402), as an issuer declines', async () => {
    const response = await postPayment(stack, creds, bodyFor(CHALLENGE));
    const error = expectError(response, 402, 'card_declined');
    expect(error.detail).toContain('authentication_required');
    const id = response.body.meta.paymentId as string;
    const failed = await get(id);
    expect(failed.attributes.status).toBe('failed');
    expect(failed.attributes.transaction.code).toBe('authentication_required');
  });
});

describe('the other sandbox cards', () => {
  it('frictionless: authenticated with no page, pending at once', async () => {
    const payment = await pay(FRICTIONLESS, { mode: 'automatic' });
    expect(payment.attributes.status).toBe('pending');
    expect(payment.attributes.nextAction).toBeUndefined();
    expect(payment.attributes.threeDSecure).toEqual({
      flow: 'frictionless',
      result: 'authenticated',
      version: '2.2.0',
      eci: '05',
    });
  });

  it('frictionless with mode challenge: challenged, as every enrolled card is', async () => {
    const payment = await pay(FRICTIONLESS, { mode: 'challenge' });
    expect(payment.attributes.status).toBe('requires_action');
    expect((await submit(tokenOf(payment), 'completed')).location?.searchParams.get('status')).toBe('pending');
  });

  it('not enrolled, even with mode challenge: goes on without authentication', async () => {
    const payment = await pay(NOT_ENROLLED, { mode: 'challenge' });
    expect(payment.attributes.status).toBe('pending');
    expect(payment.attributes.threeDSecure).toEqual({
      flow: null,
      result: 'not_enrolled',
      version: '2.2.0',
      eci: null,
    });
  });

  it('challenge completed, then declined by the issuer (insufficient funds)', async () => {
    const payment = await pay(DECLINED_AFTER_CHALLENGE, { mode: 'automatic' });
    expect(payment.attributes.status).toBe('requires_action');
    expect((await submit(tokenOf(payment), 'completed')).location?.searchParams.get('status')).toBe('failed');
    const done = await get(payment.id);
    expect(done.attributes.transaction.code).toBe('51');
    expect(done.attributes.threeDSecure.result).toBe('authenticated');
    expect(await ledgerOf(payment.id)).toEqual([]);
  });

  it('a card without 3-D Secure is unchanged: no threeDSecure at all', async () => {
    const payment = await pay(NOT_ENROLLED);
    expect(payment.attributes.status).toBe('pending');
    expect(payment.attributes.threeDSecure).toBeUndefined();
  });
});

describe('idempotency', () => {
  it('a replay while the payment waits answers the same requires_action body', async () => {
    const requestId = newRequestId();
    const first = await createPayment(stack, creds, bodyFor(CHALLENGE, { mode: 'automatic', requestId }));
    const again = await createPayment(stack, creds, bodyFor(CHALLENGE, { mode: 'automatic', requestId }));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('refusals, each changing nothing', () => {
  it('a link used once is over: the page says so, and a second answer is 410', async () => {
    const payment = await pay(CHALLENGE, { mode: 'automatic' });
    const token = tokenOf(payment);
    await submit(token, 'completed');
    const again = await submit(token, 'failed');
    expect(again.status).toBe(410);
    expect(again.html).toContain('This confirmation has ended');
    expect((await openPage(token)).status).toBe(404);
    const answer = await stack.call('POST', `/payments/${payment.id}/authentication`, {
      as: creds,
      body: { data: { type: 'authentications', attributes: { token, outcome: 'failed' } } },
    });
    expectError(answer, 410, 'challenge_expired', '/data/attributes/token');
    expect((await get(payment.id)).attributes.status).toBe('pending');
  });

  it('a token that is no challenge: 404 page; the API refuses it 410, and a payment never challenged 422', async () => {
    expect((await openPage('tds_nothing')).status).toBe(404);
    const waiting = await pay(CHALLENGE, { mode: 'automatic' });
    const wrong = await stack.call('POST', `/payments/${waiting.id}/authentication`, {
      as: creds,
      body: { data: { type: 'authentications', attributes: { token: 'tds_wrong', outcome: 'completed' } } },
    });
    expectError(wrong, 410, 'challenge_expired', '/data/attributes/token');
    expect((await get(waiting.id)).attributes.status).toBe('requires_action');
    const plain = await pay(NOT_ENROLLED);
    const never = await stack.call('POST', `/payments/${plain.id}/authentication`, {
      as: creds,
      body: { data: { type: 'authentications', attributes: { token: 'tds_x', outcome: 'completed' } } },
    });
    expectError(never, 422, 'payment_not_awaiting_authentication');
    const theirs = await stack.call('POST', `/payments/${waiting.id}/authentication`, {
      as: other,
      body: { data: { type: 'authentications', attributes: { token: tokenOf(waiting), outcome: 'completed' } } },
    });
    expect(theirs.status).toBe(403);
    expect((await get(waiting.id)).attributes.status).toBe('requires_action');
  });

  it('a refund, capture or void of a payment waiting for its cardholder: 422 payment_requires_action', async () => {
    const waiting = await pay(CHALLENGE, { mode: 'automatic' });
    for (const body of [refundBody(waiting.id, '2500'), refundBody(waiting.id, '100'), captureBody(waiting.id)]) {
      expectError(
        await postPayment(stack, creds, body),
        422,
        'payment_requires_action',
        '/data/attributes/parentPaymentId',
      );
    }
    const after = await get(waiting.id);
    expect(after.attributes.status).toBe('requires_action');
    expect(after.attributes.refunds).toEqual([]);
    expect(await ledgerOf(waiting.id)).toEqual([]);
  });

  it('a returnUrl that is not an absolute web address: 400 invalid_return_url, nothing made', async () => {
    for (const returnUrl of ['/done', 'javascript:alert(1)', 'https://user:pw@shop.example.com/', 'not a url']) {
      const body = tokenv3Body({
        merchantId,
        tokenId: tokens[CHALLENGE] as string,
        attributes: { authentication: { mode: 'automatic', returnUrl } },
      });
      expectError(
        await postPayment(stack, creds, body),
        400,
        'invalid_return_url',
        '/data/attributes/authentication/returnUrl',
      );
    }
  });

  it('authentication on an ACH payment: 400 authentication_not_supported, nothing made', async () => {
    const before = await stack.sql`select count(*)::int as n from payments where account_id = ${creds.accountId}`;
    const body = achBody({ merchantId, attributes: { authentication: { mode: 'automatic', returnUrl: RETURN_URL } } });
    expectError(
      await postPayment(stack, creds, body),
      400,
      'authentication_not_supported',
      '/data/attributes/authentication',
    );
    const after = await stack.sql`select count(*)::int as n from payments where account_id = ${creds.accountId}`;
    expect(after).toEqual(before);
  });
});

describe('abandonment, by the account clock', () => {
  it('a clock move past 15 minutes ends the waiting payments at once, once, with two settlement processes', async () => {
    const { creds: shop, merchantId: shopMerchant } = await createWorld(stack, { account: 'Clocked', token: false });
    const token = await createCardToken(stack, shop, CHALLENGE);
    const second = await startSettlement({
      config: stack.config,
      db: stack.db,
      log: createLogger({ level: 'silent' }),
    });
    try {
      const body = tokenv3Body({
        merchantId: shopMerchant,
        tokenId: token,
        attributes: { authentication: { mode: 'automatic', returnUrl: RETURN_URL } },
      });
      const waiting = [
        (await createPayment(stack, shop, body)).body.data,
        (await createPayment(stack, shop, body)).body.data,
      ];
      const challengeToken = tokenOf(waiting[0]);
      // Fourteen minutes: still open.
      await setClock(stack, shop, new Date(Date.now() + 14 * 60_000));
      expect((await openPage(challengeToken)).status).toBe(200);
      await setClock(stack, shop, new Date(Date.now() + 16 * 60_000));
      for (const payment of waiting) {
        const ended = await waitFor(
          async () => (await stack.call('GET', `/payments/${payment.id}`, { as: shop })).body.data,
          {
            until: (data) => data.attributes.status === 'voided',
            what: 'the waiting payment voided',
          },
        );
        expect(ended.attributes.voidReason).toBe('authentication_abandoned');
        expect(ended.attributes.threeDSecure.result).toBe('abandoned');
        expect(ended.attributes.nextAction).toBeUndefined();
        expect((await eventsOf(payment.id)).map((event) => event.type)).toEqual([
          'payment.requires_action',
          'payment.voided',
        ]);
      }
      const page = await openPage(challengeToken);
      expect(page.status).toBe(404);
    } finally {
      await second.close();
    }
  });

  it('a late answer ends the payment as the tick would, and sends the cardholder back with voided', async () => {
    const { creds: shop, merchantId: shopMerchant } = await createWorld(stack, { account: 'Late', token: false });
    const token = await createCardToken(stack, shop, CHALLENGE);
    const payment = (
      await createPayment(
        stack,
        shop,
        tokenv3Body({
          merchantId: shopMerchant,
          tokenId: token,
          attributes: { authentication: { mode: 'automatic', returnUrl: RETURN_URL } },
        }),
      )
    ).body.data;
    // Moved directly, so no tick is enqueued: only the answer can find the challenge lapsed.
    await stack.sql`update accounts set clock_offset_seconds = ${20 * 60} where id = ${shop.accountId}`;
    expect((await openPage(tokenOf(payment))).status).toBe(410);
    const late = await submit(tokenOf(payment), 'completed');
    expect(late.status).toBe(303);
    expect(late.location?.searchParams.get('status')).toBe('voided');
    expect(await ledgerOf(payment.id)).toEqual([]);
  });
});

describe('liability shift', () => {
  it('the fraudulent-dispute card, authenticated: the network opens no dispute on it', async () => {
    const payment = await pay(FRAUD_DISPUTE, { mode: 'automatic' });
    expect(payment.attributes.threeDSecure.result).toBe('authenticated');
    const noted = await stack.sql`select payment_id from sandbox_disputes where payment_id = ${payment.id}`;
    expect(noted).toEqual([]);
    const unauthenticated = await pay(FRAUD_DISPUTE);
    const disputed = await stack.sql`select reason from sandbox_disputes where payment_id = ${unauthenticated.id}`;
    expect(disputed).toEqual([{ reason: 'fraudulent' }]);
  });
});
