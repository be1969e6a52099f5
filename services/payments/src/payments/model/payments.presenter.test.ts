import { describe, expect, it } from 'vitest';
import { createdAt, payment } from '../../../../../test/fixtures/payment-rows';
import { paymentResource } from './payments.presenter';

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
    expect(attributes.splits).toEqual([
      { merchantId: 'mer_2', amount: '100', status: 'pending', refundableAmount: '100' },
    ]);
    expect(attributes.refundableAmount).toBe('900');
  });
});
