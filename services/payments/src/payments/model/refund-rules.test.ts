import { voidWindowEnd } from '@pps/shared/clock';
import { paymentStatuses } from '@pps/shared/states';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createdAt, payment, refund } from '../../../../../test/fixtures/payment-rows';
import type { PaymentChild } from './payments.repository';
import { acceptsRefunds, refundableAmount, refundFigures, statusAfterRefund, voidableUntil } from './refund-rules';

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
    expect(voidableUntil(payment(), [], createdAt)).toEqual(end);
    expect(voidableUntil(payment(), [], end)).toEqual(end);
    expect(voidableUntil(payment(), [], new Date(end.getTime() + 1))).toBeNull();
    expect(voidableUntil(payment(), [refund(100)], createdAt)).toBeNull();
    expect(voidableUntil(payment({ paymentType: 'ACH' }), [], createdAt)).toBeNull();
    for (const status of paymentStatuses.filter((status) => status !== 'pending')) {
      expect(voidableUntil(payment({ status }), [], createdAt)).toBeNull();
    }
  });
});

const child = (paymentType: PaymentChild['paymentType'], amount: number, extra: Partial<PaymentChild> = {}) => ({
  ...refund(amount),
  id: `pay_${paymentType}_${amount}`,
  paymentType,
  refundType: paymentType === 'refund' ? ('refund' as const) : null,
  splitMerchantId: paymentType === 'refund' ? null : 'mer_2',
  splitAmount: paymentType === 'refund' ? null : amount,
  ...extra,
});

describe('refundFigures', () => {
  const split = payment({ splitMerchantId: 'mer_2', splitAmount: 300, net: 641 });

  it('keeps refunds, split refunds and second splits apart', () => {
    const children = [child('refund', 200), child('refundSplit', 100), child('secondSplit', 50)];
    expect(refundFigures(split, children)).toEqual({
      refunded: 200,
      splitRefunded: 100,
      secondSplits: 50,
      refundable: 1000 - 300 - 200,
      splitRefundable: 300 - 100,
      remainingNet: 641 - 50 - 200,
    });
  });

  it('does not let second splits reduce what refund may take, and lets the remaining net go negative', () => {
    const figures = refundFigures(split, [child('secondSplit', 600), child('refund', 700)]);
    expect(figures.refundable).toBe(0);
    expect(figures.remainingNet).toBe(641 - 600 - 700);
  });

  it('ignores a void record and failed children', () => {
    const figures = refundFigures(payment(), [
      child('refund', 1000, { refundType: 'void', status: 'completed' }),
      child('refund', 400, { status: 'failed' }),
    ]);
    expect(figures.refunded).toBe(0);
  });

  it('offers nothing on a payment that takes no refund', () => {
    for (const row of [
      payment({ status: 'failed' }),
      payment({ status: 'voided' }),
      payment({ status: 'refunded' }),
      payment({ paymentType: 'ACH', status: 'pending' }),
      payment({ paymentType: 'refund', parentPaymentId: 'pay_parent' }),
    ]) {
      expect(acceptsRefunds(row)).toBe(false);
      expect(refundFigures(row, []).refundable).toBe(0);
      expect(refundFigures(row, []).splitRefundable).toBe(0);
    }
    expect(acceptsRefunds(payment({ paymentType: 'ACH', status: 'completed' }))).toBe(true);
  });
});

describe('statusAfterRefund', () => {
  it('is refunded exactly when refunds and split refunds reach the gross', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 100_000 }), fc.nat(), fc.nat(), (gross, a, b) => {
        const split = a % gross;
        const splitRefund = b % (split + 1);
        const row = payment({ gross, amount: gross, splitMerchantId: 'mer_2', splitAmount: split || null });
        const children = splitRefund ? [child('refundSplit', splitRefund)] : [];
        const figures = refundFigures(row, children);
        expect(statusAfterRefund(row, figures, figures.refundable)).toBe(
          splitRefund === split ? 'refunded' : 'partial_refund',
        );
        if (figures.refundable > 1) expect(statusAfterRefund(row, figures, 1)).toBe('partial_refund');
      }),
    );
  });
});

describe('voidableUntil, touched', () => {
  it('is null once any refund, split refund or second split was made, or once settled', () => {
    for (const type of ['refund', 'refundSplit', 'secondSplit'] as const)
      expect(voidableUntil(payment(), [child(type, 10)], createdAt)).toBeNull();
    expect(voidableUntil(payment({ settledAt: createdAt }), [], createdAt)).toBeNull();
  });
});
