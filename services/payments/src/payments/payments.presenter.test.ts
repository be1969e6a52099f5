import { voidWindowEnd } from '@pps/shared/clock';
import { paymentStatuses } from '@pps/shared/states';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { paymentResource, refundableAmount, voidableUntil } from './payments.presenter';
import type { Payment, PaymentChild } from './payments.repository';

const createdAt = new Date('2026-11-20T18:00:00.000Z'); // 10:00 Pacific

const payment = (overrides: Partial<Payment> = {}): Payment => ({
  id: 'pay_0000000000aaaaaaaaaaaaaaaa',
  accountId: 'acct_1',
  merchantId: 'mer_1',
  parentPaymentId: null,
  paymentType: 'card',
  requestType: 'tokenv3',
  status: 'pending',
  amount: 1000,
  currency: 'USD',
  invoice: 'INV-1',
  gross: 1000,
  feeFixed: 30,
  rateBasisPoints: 290,
  grossMinusNet: 59,
  net: 941,
  splitMerchantId: null,
  splitAmount: null,
  refundType: null,
  code: '0',
  message: 'Approved',
  authCode: 'A1B2C3',
  avsResult: 'Y',
  returnCode: null,
  tokenId: 'tok_1',
  card: { brand: 'Visa', last4: '1111', expiry: '1230', holder: 'Jane Doe' },
  billingAddress: { country: 'USA' },
  bank: null,
  miscData: null,
  settleAt: null,
  settledAt: null,
  voidedAt: null,
  failedAt: null,
  requestId: 'req_1',
  createdAt,
  updatedAt: createdAt,
  ...overrides,
});

const refund = (amount: number, status: Payment['status'] = 'pending'): PaymentChild => ({
  id: `pay_refund_${amount}`,
  paymentType: 'refund',
  status,
  amount,
  splitMerchantId: null,
  splitAmount: null,
  refundType: 'refund',
});

describe('refundableAmount', () => {
  it('is gross − the first split − refunds made, never below zero', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 50, max: 100_000_000 }),
        fc.nat(),
        fc.array(fc.nat({ max: 1_000_000 }), { maxLength: 5 }),
        (gross, splitSeed, refunds) => {
          const split = splitSeed % (gross + 1);
          const value = refundableAmount(
            payment({ gross, amount: gross, splitAmount: split || null, splitMerchantId: split ? 'mer_2' : null }),
            refunds.map((amount) => refund(amount)),
          );
          const expected = gross - split - refunds.reduce((sum, amount) => sum + amount, 0);
          expect(value).toBe(Math.max(0, expected));
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(gross - split);
        },
      ),
    );
  });

  it('is zero for failed, voided and refunded payments, and ignores failed refunds', () => {
    for (const status of ['failed', 'voided', 'refunded'] as const)
      expect(refundableAmount(payment({ status }), [])).toBe(0);
    expect(refundableAmount(payment(), [refund(300, 'failed'), refund(200)])).toBe(800);
    expect(refundableAmount(payment({ parentPaymentId: 'pay_parent', paymentType: 'refund' }), [])).toBe(0);
  });
});

describe('voidableUntil', () => {
  const end = voidWindowEnd(createdAt);

  it('is the end of the Pacific day while pending and untouched, null otherwise', () => {
    expect(voidableUntil(payment(), [], createdAt)).toBe(end.toISOString());
    expect(voidableUntil(payment(), [], end)).toBe(end.toISOString());
    expect(voidableUntil(payment(), [], new Date(end.getTime() + 1))).toBeNull();
    expect(voidableUntil(payment(), [refund(100)], createdAt)).toBeNull();
    expect(voidableUntil(payment({ paymentType: 'ACH' }), [], createdAt)).toBeNull();
    for (const status of paymentStatuses.filter((status) => status !== 'pending')) {
      expect(voidableUntil(payment({ status }), [], createdAt)).toBeNull();
    }
  });
});

describe('paymentResource', () => {
  it('writes every amount as a digit string and the rate as a percentage', () => {
    const { attributes } = paymentResource(
      payment({ splitMerchantId: 'mer_2', splitAmount: 100, net: 841, rateBasisPoints: 275 }),
      [],
      createdAt,
    );
    expect(attributes.transaction).toMatchObject({
      amount: '1000',
      gross: '1000',
      net: '841',
      grossMinusNet: '59',
      fee: '30',
      rate: '2.75',
    });
    expect(attributes.splits).toEqual([{ merchantId: 'mer_2', amount: '100', status: 'pending' }]);
    expect(attributes.refundableAmount).toBe('900');
  });
});
