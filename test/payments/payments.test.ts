import { settleAtFor } from '@pps/shared/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, setMerchantStatus } from '../fixtures/merchants';
import {
  billingAddress,
  cardBody,
  cards,
  createCardToken,
  expiryIn,
  postPayment,
  splitBody,
  tokenv3Body,
} from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
let splitMerchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({
    creds,
    other,
    merchantId,
    partnerIds: [splitMerchantId],
    tokenId,
  } = await createWorld(stack, { account: 'Acme', other: 'Globex', partners: ['Platform fees'] }));
});
afterAll(() => stack?.close());

const pay = (body: unknown, as: Credentials = creds) => postPayment(stack, as, body);

describe('POST /payments tokenv3', () => {
  it('approves a card payment: 201, pending, 2.9% + 30 in integer cents', async () => {
    const res = await pay(tokenv3Body({ merchantId, tokenId, amount: '1000' }));
    expect(res.status).toBe(201);
    const { data, links } = res.body;
    expect(data.id).toMatch(/^pay_/);
    expect(links.self).toBe(`http://localhost:8080/payments/${data.id}`);
    expect(data.type).toBe('payments');
    expect(data.attributes).toMatchObject({
      paymentType: 'card',
      status: 'pending',
      merchantId,
      transaction: {
        code: '0',
        message: 'Approved',
        amount: '1000',
        currency: 'USD',
        invoice: 'INV-1001',
        avsResult: 'Y',
        gross: '1000',
        net: '941',
        grossMinusNet: '59',
        fee: '30',
        rate: '2.9',
      },
      card: { brand: 'visa', last4: '1111', holder: 'Jane Doe' },
      billingAddress,
      refundableAmount: '1000',
      refunds: [],
    });
    expect(data.attributes.transaction.authCode).toMatch(/^[A-Z0-9]{6}$/);
    const createdAt = new Date(data.attributes.createdAt);
    expect(data.attributes.settleAt).toBe(settleAtFor(createdAt, 1).toISOString());
    const [row] =
      await stack.sql`select status, gross, net, gross_minus_net, split_amount from payments where id = ${data.id}`;
    expect(row).toMatchObject({
      status: 'pending',
      gross: '1000',
      net: '941',
      gross_minus_net: '59',
      split_amount: null,
    });
  });

  it('accepts leading zeros: "001000" is 1000 cents', async () => {
    const res = await pay(tokenv3Body({ merchantId, tokenId, amount: '001000' }));
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.transaction).toMatchObject({ amount: '1000', gross: '1000', net: '941' });
  });

  it('rounds the percentage half up', async () => {
    // 2.9% of 1050 = 30.45 → 30; of 1750 = 50.75 → 51; of 50 = 1.45 → 1.
    for (const [amount, fees] of [
      ['1050', '60'],
      ['1750', '81'],
      ['50', '31'],
    ]) {
      const res = await pay(tokenv3Body({ merchantId, tokenId, amount }));
      expect(res.body.data.attributes.transaction.grossMinusNet).toBe(fees);
      expect(Number(res.body.data.attributes.transaction.net)).toBe(Number(amount) - Number(fees));
    }
  });

  it("applies the merchant's own pricing over the platform default", async () => {
    const priced = await createMerchant(stack, creds, { accountName: 'Custom pricing' });
    await stack.sql`update merchants set fee_rate_basis_points = 250, fee_fixed_cents = 25 where id = ${priced}`;
    const res = await pay(tokenv3Body({ merchantId: priced, tokenId, amount: '10000' }));
    expect(res.body.data.attributes.transaction).toMatchObject({
      grossMinusNet: '275',
      net: '9725',
      fee: '25',
      rate: '2.5',
    });
  });

  it('sends the request holder and expiry to the processor: a past expiry declines with 54', async () => {
    const res = await pay(tokenv3Body({ merchantId, tokenId, expiry: expiryIn(-1) }));
    const error = expectError(res, 402, 'card_declined');
    expect(error.detail).toContain('Expired card');
    expect(res.body.meta.transaction).toMatchObject({ code: '54', message: 'Expired card' });
  });
});

describe('declines and AVS', () => {
  it.each([
    [cards.doNotHonor, '05', 'Do not honor'],
    [cards.insufficientFunds, '51', 'Insufficient funds'],
    [cards.expired, '54', 'Expired card'],
    [cards.processingError, '96', 'Processing error'],
  ])('declines %s with 402 code %s and keeps a failed payment', async (number, code, message) => {
    const declined = await createCardToken(stack, creds, number);
    const res = await pay(tokenv3Body({ merchantId, tokenId: declined }));
    const error = expectError(res, 402, 'card_declined');
    expect(error.title).toBe('Payment Failed');
    expect(error.detail).toContain(message);
    expect(res.body.meta.paymentId).toMatch(/^pay_/);
    expect(res.body.meta.transaction).toEqual({ code, message, avsResult: expect.any(String) });
    const got = await stack.call('GET', `/payments/${res.body.meta.paymentId}`, { as: creds });
    expect(got.status).toBe(200);
    expect(got.body.data.attributes).toMatchObject({
      status: 'failed',
      transaction: { code, message },
      refundableAmount: '0',
      voidableUntil: null,
      settleAt: null,
    });
    const events = await stack.sql`select type from events where resource_id = ${res.body.meta.paymentId}`;
    expect(events.map((event) => event.type)).toEqual(['payment.failed']);
  });

  const avsCases: [string, keyof typeof cards, boolean, number][] = [
    ['Standard', 'visa', true, 201],
    ['Standard', 'avsZ', true, 201],
    ['Standard', 'avsN', true, 422],
    ['Standard', 'avsA', true, 422],
    ['Standard', 'avsU', true, 422],
    ['Standard', 'avsN', false, 201],
    ['Strict', 'visa', true, 201],
    ['Strict', 'avsZ', true, 422],
    ['Strict', 'avsN', false, 201],
    ['Disabled', 'avsN', true, 201],
    ['Disabled', 'avsU', true, 201],
  ];
  it.each(avsCases)('merchant AVS %s, card %s, useAVS %s → %i', async (mode, card, useAVS, expected) => {
    const merchant = await createMerchant(stack, creds, { AVS: mode });
    const token = await createCardToken(stack, creds, cards[card]);
    const res = await pay(tokenv3Body({ merchantId: merchant, tokenId: token, useAVS }));
    if (expected === 201) {
      expect(res.status).toBe(201);
      return;
    }
    const error = expectError(res, 422, 'avs_mismatch');
    expect(error.detail).toContain(mode);
    const paymentId = res.body.meta.paymentId;
    expect(res.body.meta.transaction.avsResult).toMatch(/^[NAZU]$/);
    const got = await stack.call('GET', `/payments/${paymentId}`, { as: creds });
    expect(got.body.data.attributes.status).toBe('failed');
    expect(got.body.data.attributes.transaction.authCode).toBeNull();
  });
});

describe('POST /payments card (vault payment method)', () => {
  it('charges the vault card with its holder, expiry and address', async () => {
    const res = await pay(cardBody({ merchantId, tokenId, amount: '2500' }));
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      paymentType: 'card',
      status: 'pending',
      card: { last4: '1111', holder: 'Jane Doe', expiry: expiryIn(3) },
      billingAddress: { zip: '94105' },
      transaction: { amount: '2500', grossMinusNet: '103', net: '2397' },
    });
    const [row] = await stack.sql`select request_type from payments where id = ${res.body.data.id}`;
    expect(row!.request_type).toBe('card');
  });

  it('applies AVS by the merchant mode when the vault has a ZIP, and not without one', async () => {
    const withZip = await createCardToken(stack, creds, cards.avsN);
    expectError(await pay(cardBody({ merchantId, tokenId: withZip })), 422, 'avs_mismatch');
    const noZip = await createCardToken(stack, creds, cards.avsN, { billingAddress: { country: 'USA' } });
    expect((await pay(cardBody({ merchantId, tokenId: noZip }))).status).toBe(201);
  });

  it('400s a token that is not of the tok_ form, with the paymentMethod pointer', async () => {
    const res = await pay(cardBody({ merchantId, tokenId: 'card_123' }));
    expectError(res, 400, 'invalid_token_format', '/data/attributes/paymentMethod/token');
  });
});

describe('POST /payments tokenv3Split', () => {
  it('sends the split share to the second merchant without fee: net after split and fees', async () => {
    const res = await pay(splitBody({ merchantId, tokenId, splitMerchantId, amount: '10000', splitAmount: '1500' }));
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      paymentType: 'card',
      transaction: { gross: '10000', grossMinusNet: '320', net: '8180' },
      splits: [{ merchantId: splitMerchantId, amount: '1500', status: 'pending' }],
      refundableAmount: '8500',
    });
    const [row] =
      await stack.sql`select request_type, split_merchant_id, split_amount from payments where id = ${res.body.data.id}`;
    expect(row).toEqual({ request_type: 'tokenv3Split', split_merchant_id: splitMerchantId, split_amount: '1500' });
  });

  it('accepts a split of exactly gross − fees, and a billing address without country or none at all', async () => {
    const max = await pay(splitBody({ merchantId, tokenId, splitMerchantId, amount: '1000', splitAmount: '941' }));
    expect(max.status).toBe(201);
    expect(max.body.data.attributes.transaction.net).toBe('0');
    const noCountry = splitBody({ merchantId, tokenId, splitMerchantId, splitAmount: '100' });
    noCountry.data.attributes.billingAddress = { ...billingAddress, country: undefined } as never;
    expect((await pay(noCountry)).status).toBe(201);
    const noAddress = splitBody({ merchantId, tokenId, splitMerchantId, splitAmount: '100', useAVS: false });
    noAddress.data.attributes.billingAddress = undefined as never;
    expect((await pay(noAddress)).status).toBe(201);
  });

  it.each([
    ['942', 'above gross − fees'],
    ['1000', 'equal to the amount'],
    ['5000', 'above the amount'],
    ['0', 'zero'],
    ['abc', 'not digits'],
  ])('400s a split amount of %s (%s)', async (splitAmount) => {
    const res = await pay(splitBody({ merchantId, tokenId, splitMerchantId, amount: '1000', splitAmount }));
    expectError(
      res,
      400,
      splitAmount === '0' || splitAmount === 'abc' ? 'invalid_field' : 'invalid_split_amount',
      '/data/attributes/split/amount',
    );
  });

  it('checks the split merchant like the primary', async () => {
    const pointer = '/data/attributes/split/merchantId';
    const body = (split: string) => splitBody({ merchantId, tokenId, splitMerchantId: split, splitAmount: '100' });
    expectError(await pay(body(merchantId)), 400, 'invalid_split_merchant', pointer);
    expectError(await pay(body('mer_unknown')), 404, 'merchant_not_found', pointer);
    const foreign = await createMerchant(stack, other);
    expectError(await pay(body(foreign)), 403, 'merchant_forbidden', pointer);
    const suspended = await createMerchant(stack, creds);
    await setMerchantStatus(stack, suspended, 'suspended');
    expectError(await pay(body(suspended)), 422, 'merchant_not_active', pointer);
  });
});

describe('metrics', () => {
  it('counts payments by type and outcome at /metrics', async () => {
    const declinedToken = await createCardToken(stack, creds, cards.doNotHonor);
    await pay(tokenv3Body({ merchantId, tokenId, amount: '1500' }));
    await pay(tokenv3Body({ merchantId, tokenId: declinedToken, amount: '1500' }));
    const metrics = await stack.call('GET', '/metrics');
    expect(metrics.body).toMatch(/pps_payments_total\{type="tokenv3",outcome="approved"\} [1-9]/);
    expect(metrics.body).toMatch(/pps_payments_total\{type="tokenv3",outcome="declined"\} [1-9]/);
  });
});
