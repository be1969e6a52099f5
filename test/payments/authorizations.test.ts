import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  captureBody,
  cardBody,
  createPayment,
  newRequestId,
  postPayment,
  refundBody,
  setClock,
  splitBody,
  tokenv3Body,
} from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * Authorize now, capture later (docs/api.md): `capture: false`, `paymentType: capture` in full or in part, cancel by
 * a full refund; every refusal with its status, code and pointer, and nothing stored by it.
 */
let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
let partnerId: string;
let tokenId: string;

beforeAll(async () => {
  // Settlement workers too: a clock move settles the account, as in production.
  stack = await createTestStack({ settlement: true });
  ({
    creds,
    other,
    merchantId,
    tokenId,
    partnerIds: [partnerId],
  } = await createWorld(stack, { account: 'Hotel', other: 'Elsewhere', partners: ['Tips'] }));
});
afterAll(() => stack?.close());

const pay = (body: unknown, as: Credentials = creds) => postPayment(stack, as, body);
const authorizeBody = (amount = '10000', requestId?: string) =>
  tokenv3Body({ merchantId, tokenId, amount, requestId, attributes: { capture: false } });
const authorize = async (amount = '10000') => (await createPayment(stack, creds, authorizeBody(amount))).body.data;
const get = async (id: string) => (await stack.call('GET', `/payments/${id}`, { as: creds })).body.data;
const ledgerOf = (paymentId: string) =>
  stack.sql`select kind, ledger_account, amount::int from ledger_entries where payment_id = ${paymentId}
    order by kind, ledger_account`;
const eventsOf = (paymentId: string) =>
  stack.sql`select type, payload from events where resource_id = ${paymentId} order by sequence`;
const childrenOf = (paymentId: string) =>
  stack.sql`select id, payment_type, status, amount::int, refund_type from payments where parent_payment_id = ${paymentId}`;

/** What a refusal must leave: the parent as it was, no child, no posting, no event beyond the authorization's. */
async function expectUntouched(paymentId: string, status = 'authorized') {
  expect((await get(paymentId)).attributes.status).toBe(status);
  expect(await childrenOf(paymentId)).toHaveLength(0);
  expect(await ledgerOf(paymentId)).toHaveLength(0);
  expect((await eventsOf(paymentId)).map((event) => event.type)).toEqual(['payment.authorized']);
}

describe('authorize (capture: false)', () => {
  it('authorizes without moving money: authorized, an expiry 7 days out, no settlement, payment.authorized', async () => {
    const response = await pay(authorizeBody('10000'));
    expect(response.status).toBe(201);
    const { id, attributes } = response.body.data;
    expect(attributes.status).toBe('authorized');
    expect(attributes.transaction).toMatchObject({
      amount: '10000',
      gross: '10000',
      grossMinusNet: '320',
      net: '9680',
    });
    expect(attributes.settleAt).toBeNull();
    expect(new Date(attributes.authorizationExpiresAt).getTime() - new Date(attributes.createdAt).getTime()).toBe(
      7 * 86_400_000,
    );
    expect(attributes.refundableAmount).toBe('0');
    expect(await ledgerOf(id)).toHaveLength(0);
    expect(await stack.sql`select 1 from balance_transactions where source_id = ${id}`).toHaveLength(0);
    const [event] = await eventsOf(id);
    expect(event?.type).toBe('payment.authorized');
    expect(event?.payload.data.attributes.status).toBe('authorized');
  });

  it('replays an authorization for its requestId, never making a second one', async () => {
    const requestId = newRequestId();
    const first = await pay(authorizeBody('2500', requestId));
    const again = await pay(authorizeBody('2500', requestId));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    const rows = await stack.sql`select p.id from payments p join idempotency_keys k on k.payment_id = p.id
      where k.request_id = ${requestId}`;
    expect(rows).toHaveLength(1);
  });

  it('authorizes card and tokenv3Split payments too, and lists and filters them as authorized', async () => {
    const body = cardBody({ merchantId, tokenId, amount: '3000' });
    const byVault = await createPayment(stack, creds, {
      data: { ...body.data, attributes: { ...body.data.attributes, capture: false } },
    });
    expect(byVault.body.data.attributes.status).toBe('authorized');
    const split = await createPayment(
      stack,
      creds,
      splitBody({
        merchantId,
        tokenId,
        amount: '5000',
        splitMerchantId: partnerId,
        splitAmount: '1000',
        attributes: { capture: false },
      }),
    );
    expect(split.body.data.attributes.status).toBe('authorized');
    const listed = await stack.call('GET', `/payments?id=${merchantId}&status=authorized&limit=100`, { as: creds });
    expect(listed.status).toBe(200);
    const ids = listed.body.data.map((row: { id: string }) => row.id);
    expect(ids).toEqual(expect.arrayContaining([byVault.body.data.id, split.body.data.id]));
    expect(
      listed.body.data.every((row: { attributes: { status: string } }) => row.attributes.status === 'authorized'),
    ).toBe(true);
  });

  it('fails a declined authorization as any declined payment (402), with no authorization left', async () => {
    const declinedToken = await stack.call('POST', '/tokens', {
      as: creds,
      body: {
        data: {
          type: 'tokens',
          attributes: {
            tokenType: 'card',
            card: { holder: 'Jane Doe', number: '4000000000000002', expiry: '1230', code: '123' },
          },
        },
      },
    });
    expect(declinedToken.status).toBe(201);
    const response = await pay(
      tokenv3Body({ merchantId, tokenId: declinedToken.body.data.id, attributes: { capture: false } }),
    );
    expectError(response, 402, 'card_declined');
  });

  it('serves the new transitions at GET /payments/states', async () => {
    const states = await stack.call('GET', '/payments/states', { as: creds });
    expect(states.body.data.attributes.statuses).toContain('authorized');
    expect(states.body.data.attributes.transitions).toEqual(
      expect.arrayContaining([
        { from: 'authorized', to: 'pending', event: 'capture' },
        { from: 'authorized', to: 'voided', event: 'void' },
      ]),
    );
  });
});

describe('capture', () => {
  it('captures the whole authorization when no transaction is given', async () => {
    const authorization = await authorize('10000');
    const response = await pay(captureBody(authorization.id));
    expect(response.status).toBe(201);
    expect(response.body.data.attributes).toMatchObject({
      paymentType: 'capture',
      parentPaymentId: authorization.id,
      status: 'completed',
      transaction: { amount: '10000' },
    });
    const parent = await get(authorization.id);
    expect(parent.attributes).toMatchObject({
      status: 'pending',
      transaction: { amount: '10000', gross: '10000', grossMinusNet: '320', net: '9680' },
    });
    expect(parent.attributes.capturedAt).toEqual(expect.any(String));
    expect(parent.attributes.settleAt).toEqual(expect.any(String));
    expect(new Date(parent.attributes.settleAt).getTime()).toBeGreaterThan(
      new Date(parent.attributes.capturedAt).getTime(),
    );
    const entries = await ledgerOf(authorization.id);
    expect(entries.map((entry) => entry.kind)).toEqual(['capture', 'capture', 'capture']);
    expect(entries.reduce((sum, entry) => sum + entry.amount, 0)).toBe(0);
    const events = await eventsOf(authorization.id);
    expect(events.map((event) => event.type)).toEqual(['payment.authorized', 'payment.captured']);
    expect(events[1]?.payload.data.previousStatus).toBe('authorized');
  });

  it('captures less: fees on the captured amount, the rest released; a refund then takes at most that', async () => {
    const authorization = await authorize('10000');
    const response = await pay(captureBody(authorization.id, '6000'));
    expect(response.status).toBe(201);
    expect(response.body.data.attributes.transaction.message).toContain('released');
    const parent = await get(authorization.id);
    // 2.9 % of 6000 is 174, plus 30 fixed.
    expect(parent.attributes.transaction).toMatchObject({
      amount: '6000',
      gross: '6000',
      grossMinusNet: '204',
      net: '5796',
    });
    expect(parent.attributes.refundableAmount).toBe('6000');
    const merchantShare = (await ledgerOf(authorization.id)).find((entry) =>
      String(entry.ledger_account).startsWith(`merchant:${merchantId}`),
    );
    expect(merchantShare?.amount).toBe(5796);
    expectError(await pay(refundBody(authorization.id, '6001')), 400, 'refund_exceeds_amount');
  });

  it('computes the split on the captured amount, and refuses a capture that cannot cover the split', async () => {
    const split = await createPayment(
      stack,
      creds,
      splitBody({
        merchantId,
        tokenId,
        amount: '5000',
        splitMerchantId: partnerId,
        splitAmount: '2000',
        attributes: { capture: false },
      }),
    );
    const id = split.body.data.id;
    const tooSmall = await pay(captureBody(id, '2000'));
    const error = expectError(tooSmall, 400, 'capture_below_split', '/data/attributes/transaction/amount');
    expect(error.detail).toContain('2000');
    const made = await pay(captureBody(id, '4000'));
    expect(made.status).toBe(201);
    const parent = await get(id);
    // 4000 − (116 + 30) fees − 2000 split.
    expect(parent.attributes.transaction).toMatchObject({ amount: '4000', net: '1854' });
    expect(parent.attributes.splits).toEqual([expect.objectContaining({ merchantId: partnerId, amount: '2000' })]);
  });

  it('is idempotent: a replayed capture returns the same record', async () => {
    const authorization = await authorize('3000');
    const requestId = newRequestId();
    const first = await pay(captureBody(authorization.id, '2000', requestId));
    const again = await pay(captureBody(authorization.id, '2000', requestId));
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await childrenOf(authorization.id)).toHaveLength(1);
  });

  describe('refusals (nothing stored)', () => {
    it('400 capture_exceeds_authorization for more than was authorized', async () => {
      const authorization = await authorize('5000');
      const error = expectError(
        await pay(captureBody(authorization.id, '5001')),
        400,
        'capture_exceeds_authorization',
        '/data/attributes/transaction/amount',
      );
      expect(error.detail).toContain('5000');
      await expectUntouched(authorization.id);
    });

    it('400 currency_mismatch for another currency', async () => {
      const authorization = await authorize('5000');
      const body = captureBody(authorization.id, '100');
      (body.data.attributes as { transaction: { currency: string } }).transaction.currency = 'EUR';
      expectError(await pay(body), 400, 'invalid_field', '/data/attributes/transaction/currency');
      await expectUntouched(authorization.id);
    });

    it('400 amount_below_fees when the captured amount does not cover the fixed fee', async () => {
      const authorization = await authorize('5000');
      expectError(
        await pay(captureBody(authorization.id, '20')),
        400,
        'amount_below_fees',
        '/data/attributes/transaction/amount',
      );
      await expectUntouched(authorization.id);
    });

    it('422 already_captured for a second capture', async () => {
      const authorization = await authorize('5000');
      expect((await pay(captureBody(authorization.id, '1000'))).status).toBe(201);
      const error = expectError(
        await pay(captureBody(authorization.id, '1000')),
        422,
        'already_captured',
        '/data/attributes/parentPaymentId',
      );
      expect(error.detail).toContain(authorization.id);
      expect(await childrenOf(authorization.id)).toHaveLength(1);
    });

    it('422 not_authorized for a payment captured at once, and for a cancelled authorization', async () => {
      const captured = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
      expectError(
        await pay(captureBody(captured.body.data.id)),
        422,
        'not_authorized',
        '/data/attributes/parentPaymentId',
      );
      expect(await childrenOf(captured.body.data.id)).toHaveLength(0);

      const authorization = await authorize('5000');
      expect((await pay(refundBody(authorization.id, '5000'))).status).toBe(201);
      expectError(await pay(captureBody(authorization.id)), 422, 'not_authorized', '/data/attributes/parentPaymentId');
    });

    it('404 for an unknown payment, 403 for another account’s authorization', async () => {
      expectError(
        await pay(captureBody('pay_00000000000000000000000000')),
        404,
        'payment_not_found',
        '/data/attributes/parentPaymentId',
      );
      const authorization = await authorize('5000');
      const response = await pay(captureBody(authorization.id), other);
      expect(response.status).toBe(403);
      expect(response.body.errors[0].source).toEqual({ pointer: '/data/attributes/parentPaymentId' });
      await expectUntouched(authorization.id);
    });
  });
});

describe('cancel (a full refund of an authorization)', () => {
  it('voids it: a void record, the parent voided (cancelled), payment.voided, no posting', async () => {
    const authorization = await authorize('7000');
    const response = await pay(refundBody(authorization.id, '7000'));
    expect(response.status).toBe(201);
    expect(response.body.data.attributes).toMatchObject({ paymentType: 'refund', status: 'completed' });
    expect(response.body.data.attributes.transaction.refundType).toBe('void');
    const parent = await get(authorization.id);
    expect(parent.attributes).toMatchObject({ status: 'voided', voidReason: 'cancelled' });
    expect(await ledgerOf(authorization.id)).toHaveLength(0);
    expect((await eventsOf(authorization.id)).map((event) => event.type)).toEqual([
      'payment.authorized',
      'payment.voided',
    ]);
  });

  it('400 partial_cancel_not_supported for another amount, storing nothing', async () => {
    const authorization = await authorize('7000');
    const error = expectError(
      await pay(refundBody(authorization.id, '3000')),
      400,
      'partial_cancel_not_supported',
      '/data/attributes/transaction/amount',
    );
    expect(error.detail).toContain('7000');
    await expectUntouched(authorization.id);
  });
});

describe('races on one authorization (real concurrent requests)', () => {
  it('two captures at once: one wins, the other is a 422 already_captured, one capture posting', async () => {
    for (let round = 0; round < 5; round++) {
      const authorization = await authorize('4000');
      const responses = await Promise.all([
        pay(captureBody(authorization.id, '3000')),
        pay(captureBody(authorization.id, '2000')),
      ]);
      const won = responses.filter((response) => response.status === 201);
      expect(won).toHaveLength(1);
      const lost = responses.find((response) => response.status !== 201)!;
      expectError(lost, 422, 'already_captured', '/data/attributes/parentPaymentId');
      const parent = await get(authorization.id);
      expect(parent.attributes.transaction.amount).toBe(won[0]!.body.data.attributes.transaction.amount);
      const postings = await stack.sql`select count(distinct posting_id)::int as n from ledger_entries
        where payment_id = ${authorization.id} and kind = 'capture'`;
      expect(postings[0]?.n).toBe(1);
      expect(await childrenOf(authorization.id)).toHaveLength(1);
    }
  });

  it('a capture and a cancel at once: serialised, never both an authorization cancelled and a capture', async () => {
    for (let round = 0; round < 5; round++) {
      const authorization = await authorize('4000');
      const [capture, cancel] = await Promise.all([
        pay(captureBody(authorization.id)),
        pay(refundBody(authorization.id, '4000')),
      ]);
      expect(cancel.status).toBe(201);
      const parent = await get(authorization.id);
      const entries = await ledgerOf(authorization.id);
      expect(parent.attributes.status).toBe('voided');
      if (capture.status === 201) {
        // The capture came first: the refund then voided the captured payment (still in its void window): the
        // capture posting, and its reversal on the void record, net to zero.
        expect(parent.attributes.voidReason).toBeUndefined();
        const voidRecord = (await childrenOf(authorization.id)).find((child) => child.refund_type === 'void');
        const reversal = await ledgerOf(voidRecord!.id);
        expect(entries.map((entry) => entry.kind)).toEqual(['capture', 'capture', 'capture']);
        expect(reversal.map((entry) => entry.kind)).toEqual(['void', 'void', 'void']);
        for (const entry of entries) {
          const reversed = reversal.find((other) => other.ledger_account === entry.ledger_account);
          expect(reversed?.amount).toBe(-entry.amount);
        }
      } else {
        // The cancel came first: nothing was ever posted, and the capture was refused.
        expectError(capture, 422, 'not_authorized', '/data/attributes/parentPaymentId');
        expect(parent.attributes.voidReason).toBe('cancelled');
        expect(entries).toHaveLength(0);
      }
    }
  });
});

describe('expiry', () => {
  it('422 authorization_expired once the account’s clock is past authorizationExpiresAt', async () => {
    const world = await createWorld(stack, { account: 'Late hotel' });
    const authorization = (
      await createPayment(
        stack,
        world.creds,
        tokenv3Body({ merchantId: world.merchantId, tokenId: world.tokenId, attributes: { capture: false } }),
      )
    ).body.data;
    const expiresAt = new Date(authorization.attributes.authorizationExpiresAt);
    await setClock(stack, world.creds, new Date(expiresAt.getTime() + 60_000));
    const error = expectError(
      await postPayment(stack, world.creds, captureBody(authorization.id)),
      422,
      'authorization_expired',
      '/data/attributes/parentPaymentId',
    );
    expect(error.detail).toContain(expiresAt.toISOString());
    expect(await childrenOf(authorization.id)).toHaveLength(0);
    expect(await ledgerOf(authorization.id)).toHaveLength(0);
  });
});

describe('settlement of a captured authorization', () => {
  it('settles by the capture time, and the merchant is paid what was captured less fees', async () => {
    const world = await createWorld(stack, { account: 'Rental' });
    const authorization = (
      await createPayment(
        stack,
        world.creds,
        tokenv3Body({
          merchantId: world.merchantId,
          tokenId: world.tokenId,
          amount: '8000',
          attributes: { capture: false },
        }),
      )
    ).body.data;
    expect((await postPayment(stack, world.creds, captureBody(authorization.id, '5000'))).status).toBe(201);
    const captured = (await stack.call('GET', `/payments/${authorization.id}`, { as: world.creds })).body.data;
    const pending = await stack.call('GET', `/merchants/${world.merchantId}/balance`, { as: world.creds });
    // 5000 − (145 + 30), pending until the captured payment settles.
    expect(pending.body.data.attributes).toMatchObject({ pending: '4825', available: '0' });
    await setClock(stack, world.creds, new Date(new Date(captured.attributes.settleAt).getTime() + 60_000));
    await waitFor(
      async () => (await stack.call('GET', `/payments/${authorization.id}`, { as: world.creds })).body.data,
      {
        until: (payment) => payment.attributes.status === 'completed' && payment.attributes.settledAt !== null,
        what: 'the captured authorization settled',
      },
    );
    // Settled, it is the merchant's: available, or already on its way in the payout the clock move also ran.
    const settled = (await stack.call('GET', `/merchants/${world.merchantId}/balance`, { as: world.creds })).body.data
      .attributes;
    expect(settled.pending).toBe('0');
    expect(Number(settled.available) + Number(settled.inTransit)).toBe(4825);
  });
});
