import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, personalMerchantAttributes, setMerchantStatus } from '../fixtures/merchants';
import { createCardToken, postPayment, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({ creds, other, merchantId, tokenId } = await createWorld(stack, { account: 'Acme', other: 'Globex' }));
});
afterAll(() => stack?.close());

const pay = (body: unknown, as: Credentials = creds) => postPayment(stack, as, body);

describe('validation', () => {
  const amountPointer = '/data/attributes/transaction/amount';

  it.each([
    ['10.00', 'string of digits'],
    ['-100', 'string of digits'],
    ['49', 'at least 50'],
    ['100000001', 'at most 100000000'],
  ])('400s amount %s', async (amount, detail) => {
    const error = expectError(
      await pay(tokenv3Body({ merchantId, tokenId, amount })),
      400,
      'invalid_field',
      amountPointer,
    );
    expect(error.detail).toContain(detail);
  });

  it('400s an amount sent as a number and a currency other than USD', async () => {
    const body = tokenv3Body({
      merchantId,
      tokenId,
      attributes: { transaction: { amount: 1000, currency: 'EUR', invoice: 'X' } },
    });
    const res = await pay(body);
    expectError(res, 400, 'invalid_field', amountPointer);
    expectError(res, 400, 'invalid_field', '/data/attributes/transaction/currency');
  });

  it('lists every invalid field of a tokenv3 body at once', async () => {
    const res = await pay({
      data: {
        type: 'payments',
        requestId: 'not-a-uuid',
        attributes: {
          paymentType: 'tokenv3',
          merchantId,
          token: { tokenId: 'abc', holder: 'Jane', expiry: '1330' },
          transaction: { amount: '1000', currency: 'USD' },
          billingAddress: { zip: '94105' },
        },
      },
    });
    expectError(res, 400, 'invalid_field', '/data/requestId');
    expectError(res, 400, 'invalid_token_format', '/data/attributes/token/tokenId');
    expectError(res, 400, 'invalid_field', '/data/attributes/token/expiry');
    expectError(res, 400, 'missing_field', '/data/attributes/token/useAVS');
    expectError(res, 400, 'missing_field', '/data/attributes/transaction/invoice');
    expectError(res, 400, 'missing_field', '/data/attributes/billingAddress/country');
  });

  it('400s a missing billing address on tokenv3, and a country that is not an ISO code', async () => {
    const res = await pay(tokenv3Body({ merchantId, tokenId, attributes: { billingAddress: undefined } }));
    expectError(res, 400, 'missing_field', '/data/attributes/billingAddress');
    const named = await pay(
      tokenv3Body({ merchantId, tokenId, attributes: { billingAddress: { country: 'United States' } } }),
    );
    expectError(named, 400, 'invalid_field', '/data/attributes/billingAddress/country');
  });

  it('400s an unknown paymentType and a wrong data.type', async () => {
    const unknown = await pay(tokenv3Body({ merchantId, tokenId, attributes: { paymentType: 'bitcoin' } }));
    expectError(unknown, 400, 'invalid_field', '/data/attributes/paymentType');
    const wrongType = { data: { ...tokenv3Body({ merchantId, tokenId }).data, type: 'merchants' } };
    expectError(await pay(wrongType), 400, 'invalid_field', '/data/type');
  });

  it('400s a token id of the wrong form and a well-formed unknown or foreign token', async () => {
    const pointer = '/data/attributes/token/tokenId';
    expectError(await pay(tokenv3Body({ merchantId, tokenId: 'tok_123' })), 400, 'invalid_token_format', pointer);
    const unknown = 'tok_0000000000aaaaaaaaaaaaaaaa';
    expectError(await pay(tokenv3Body({ merchantId, tokenId: unknown })), 400, 'token_not_found', pointer);
    const foreign = await createCardToken(stack, other);
    expectError(await pay(tokenv3Body({ merchantId, tokenId: foreign })), 400, 'token_not_found', pointer);
  });

  it('checks the primary merchant: unknown 404, foreign 403, not active 422', async () => {
    const pointer = '/data/attributes/merchantId';
    expectError(await pay(tokenv3Body({ merchantId: 'mer_nope', tokenId })), 404, 'merchant_not_found', pointer);
    const foreign = await createMerchant(stack, other);
    expectError(await pay(tokenv3Body({ merchantId: foreign, tokenId })), 403, 'merchant_forbidden', pointer);
    for (const status of ['suspended', 'closed']) {
      const merchant = await createMerchant(stack, creds);
      await setMerchantStatus(stack, merchant, status);
      const error = expectError(
        await pay(tokenv3Body({ merchantId: merchant, tokenId })),
        422,
        'merchant_not_active',
        pointer,
      );
      expect(error.detail).toContain(status);
    }
    const pending = await createMerchant(stack, creds, {
      personalInfo: { ...personalMerchantAttributes().personalInfo, firstName: 'Review' },
    });
    expectError(await pay(tokenv3Body({ merchantId: pending, tokenId })), 422, 'merchant_not_active', pointer);
  });
});
