import type { Payment, PaymentChild } from '../payments/payments.repository';

/** Payment rows for unit tests of the pure rules and the presenter (no database). */
export const createdAt = new Date('2026-11-20T18:00:00.000Z'); // 10:00 Pacific

export const payment = (overrides: Partial<Payment> = {}): Payment => ({
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

export const refund = (amount: number, status: Payment['status'] = 'pending'): PaymentChild => ({
  id: `pay_refund_${amount}`,
  paymentType: 'refund',
  status,
  amount,
  splitMerchantId: null,
  splitAmount: null,
  refundType: 'refund',
  createdAt,
});
