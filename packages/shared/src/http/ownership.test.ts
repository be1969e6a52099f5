import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error';
import { belongsTo, forbidden, notFound, ownedBy } from './ownership';

const caller = { accountId: 'acct_mine' };
const mine = { id: 'pay_1', accountId: 'acct_mine' };
const theirs = { id: 'pay_2', accountId: 'acct_theirs' };

const thrown = (run: () => unknown): ApiError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
};

describe('notFound and forbidden', () => {
  it('name the record as the contract does', () => {
    expect(notFound('payment', 'pay_1').toObjects()).toEqual([
      { status: '404', code: 'payment_not_found', title: 'Not Found', detail: 'No payment pay_1' },
    ]);
    expect(forbidden('token', 'tok_1').toObjects()).toEqual([
      {
        status: '403',
        code: 'token_forbidden',
        title: 'Forbidden',
        detail: 'Vault token tok_1 belongs to another account',
      },
    ]);
    expect(notFound('checkoutSession', 'cs_1').detail).toBe('No checkout session cs_1');
    expect(forbidden('webhook', 'wh_1').detail).toBe('Webhook endpoint wh_1 belongs to another account');
    expect(notFound('achFile', 'ach_1').code).toBe('ach_file_not_found');
    expect(notFound('achFile', 'ach_1').detail).toBe('No ACH file ach_1');
  });

  it('carry the pointer or parameter the id came from, a 400 where the contract says so, and headers', () => {
    expect(notFound('merchant', 'mer_1', { pointer: '/data/attributes/merchantId', status: 400 }).toObjects()).toEqual([
      {
        status: '400',
        code: 'merchant_not_found',
        title: 'Bad Request',
        detail: 'No merchant mer_1',
        source: { pointer: '/data/attributes/merchantId' },
      },
    ]);
    expect(forbidden('customer', 'cus_1', { parameter: 'customerId' }).toObjects()[0]?.source).toEqual({
      parameter: 'customerId',
    });
    expect(notFound('checkoutSession', 'cs_1', { headers: { 'x-a': 'b' } }).headers).toEqual({ 'x-a': 'b' });
  });
});

describe('ownedBy', () => {
  it('returns the caller’s record', () => {
    expect(ownedBy(mine, caller, 'payment', 'pay_1')).toBe(mine);
  });

  it('is 404 without a record and 403 for another account’s, with the id as named', () => {
    expect(thrown(() => ownedBy(undefined, caller, 'payment', 'nope'))).toMatchObject({
      status: 404,
      code: 'payment_not_found',
      detail: 'No payment nope',
    });
    expect(thrown(() => ownedBy(theirs, caller, 'payment', 'pay_2'))).toMatchObject({
      status: 403,
      code: 'payment_forbidden',
      detail: 'Payment pay_2 belongs to another account',
    });
  });

  it('passes the source to both errors, and the not-found status to the first only', () => {
    const options = { parameter: 'merchantId', notFoundStatus: 400 as const };
    expect(thrown(() => ownedBy(null, caller, 'merchant', 'mer_9', options))).toMatchObject({
      status: 400,
      code: 'merchant_not_found',
      parameter: 'merchantId',
    });
    expect(thrown(() => ownedBy(theirs, caller, 'merchant', 'mer_9', options))).toMatchObject({
      status: 403,
      code: 'merchant_forbidden',
      parameter: 'merchantId',
    });
  });
});

describe('belongsTo', () => {
  it('is true only for an existing record of the account', () => {
    expect(belongsTo(mine, 'acct_mine')).toBe(true);
    expect(belongsTo(theirs, 'acct_mine')).toBe(false);
    expect(belongsTo(undefined, 'acct_mine')).toBe(false);
  });
});
