import { describe, expect, it } from 'vitest';
import type { CardAuthorizationRequest } from '../processor/processor';
import type { BillingAddress } from '../tokens/tokens.repository';
import { avsFromAddress, SandboxProcessor } from './sandbox-processor';

const processor = new SandboxProcessor();
const now = new Date('2026-06-15T12:00:00.000Z');
const fullAddress: BillingAddress = { line1: '1 Market St', city: 'San Francisco', zip: '94105', country: 'USA' };

const authorize = (number: string, overrides: Partial<CardAuthorizationRequest> = {}) =>
  processor.authorizeCard({
    paymentId: `pay_${number}_${Math.random()}`,
    card: { number, expiry: '1230', holder: 'Jane Doe' },
    amount: 1000,
    billingAddress: fullAddress,
    now,
    ...overrides,
  });

describe('SandboxProcessor: approved cards', () => {
  it.each([
    ['4111111111111111', 'visa'],
    ['4242424242424242', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['378282246310005', 'amex'],
    ['6011111111111117', 'discover'],
    ['4012888888881881', 'visa'], // any other Luhn-valid card
    ['3530111333300000', 'unknown'],
  ])('%s is approved (%s)', async (number, brand) => {
    const result = await authorize(number);
    expect(result).toEqual({
      approved: true,
      code: '00',
      message: 'Approved',
      authCode: expect.stringMatching(/^[A-Z0-9]{6}$/),
      avsResult: 'Y',
      brand,
      last4: number.slice(-4),
    });
  });

  it('accepts grouped digits', async () => {
    const result = await authorize('4111 1111-1111 1111');
    expect(result.approved).toBe(true);
    expect(result.last4).toBe('1111');
  });

  it('gives random auth codes', async () => {
    const codes = new Set<string | null>();
    for (let i = 0; i < 20; i++) codes.add((await authorize('4111111111111111')).authCode);
    expect(codes.size).toBeGreaterThan(15);
  });
});

describe('SandboxProcessor: declines', () => {
  it.each([
    ['4000000000000002', '05', 'Do not honor'],
    ['4000000000009995', '51', 'Insufficient funds'],
    ['4000000000000069', '54', 'Expired card'],
    ['4000000000000119', '96', 'Processing error'],
  ])('%s declines %s "%s"', async (number, code, message) => {
    expect(await authorize(number)).toEqual({
      approved: false,
      code,
      message,
      authCode: null,
      avsResult: 'U',
      brand: 'visa',
      last4: number.slice(-4),
    });
  });

  it('declines a card past its expiry month with 54, whatever the card', async () => {
    for (const number of ['4111111111111111', '4000000000000010', '4000000000000002']) {
      const result = await authorize(number, { card: { number, expiry: '0526', holder: 'Jane Doe' } });
      expect(result).toMatchObject({ approved: false, code: '54', message: 'Expired card', authCode: null });
    }
  });

  it('honours the card through the last instant of its expiry month', async () => {
    const card = { number: '4111111111111111', expiry: '0626', holder: 'Jane Doe' };
    expect((await authorize(card.number, { card, now: new Date('2026-06-30T23:59:59.999Z') })).approved).toBe(true);
    expect((await authorize(card.number, { card, now: new Date('2026-07-01T00:00:00.000Z') })).code).toBe('54');
  });

  it('declines a malformed expiry as expired', async () => {
    const result = await authorize('4111111111111111', {
      card: { number: '4111111111111111', expiry: '1330', holder: 'x' },
    });
    expect(result.code).toBe('54');
  });

  it('declines a number that fails Luhn or has the wrong length with 14', async () => {
    for (const number of ['4111111111111112', '41111111111', '41111111111111111111', '4111x11111111111']) {
      expect(await authorize(number)).toMatchObject({ approved: false, code: '14', authCode: null });
    }
  });

  it('refuses an amount that is not positive integer cents', async () => {
    for (const amount of [0, -1, 10.5, Number.NaN]) {
      await expect(authorize('4111111111111111', { amount })).rejects.toThrow(RangeError);
    }
  });
});

describe('SandboxProcessor: AVS', () => {
  const addresses: [string, BillingAddress | null][] = [
    ['full address', fullAddress],
    ['zip only', { zip: '94105' }],
    ['line1 only', { line1: '1 Market St' }],
    ['no address', null],
  ];

  it.each([
    ['4000000000000010', 'N'],
    ['4000000000000028', 'Z'],
    ['4000000000000036', 'A'],
    ['4000000000000044', 'U'],
  ] as const)('%s is approved with AVS %s whatever the address', async (number, avs) => {
    for (const [, billingAddress] of addresses) {
      const result = await authorize(number, { billingAddress });
      expect(result).toMatchObject({ approved: true, code: '00', avsResult: avs });
      expect(result.authCode).toMatch(/^[A-Z0-9]{6}$/);
    }
  });

  it.each([
    ['full address', fullAddress, 'Y'],
    ['line1 and zip only', { line1: '1 Market St', zip: '94105' }, 'Y'],
    ['zip only', { zip: '94105' }, 'Z'],
    ['line1 only', { line1: '1 Market St' }, 'U'],
    ['blank zip', { line1: '1 Market St', zip: '  ' }, 'U'],
    ['blank line1', { line1: '', zip: '94105' }, 'Z'],
    ['empty address', {}, 'U'],
    ['no address', null, 'U'],
  ] as const)('other approved cards: %s gives %s', async (_label, billingAddress, avs) => {
    expect(avsFromAddress(billingAddress)).toBe(avs);
    expect((await authorize('4242424242424242', { billingAddress })).avsResult).toBe(avs);
  });
});

describe('SandboxProcessor: payout returns', () => {
  it('returns credits to 000000005501 (R01) and 000000005503 (R03) by trace number; any other account is paid', () => {
    const credits = [
      { traceNumber: '121000350000007', accountNumber: '000000005501' },
      { traceNumber: '121000350000008', accountNumber: '000000005502' },
      { traceNumber: '121000350000009', accountNumber: '000000005503' },
      { traceNumber: '121000350000010', accountNumber: '000123456789' },
    ];
    expect(processor.payoutReturns(credits)).toEqual([
      { traceNumber: '121000350000007', code: 'R01', message: 'Insufficient funds' },
      { traceNumber: '121000350000009', code: 'R03', message: 'No account/unable to locate account' },
    ]);
    expect(processor.payoutReturns([])).toEqual([]);
  });
});

describe('SandboxProcessor: latency and lookup', () => {
  it('remembers each answer by payment id; an unknown id is null', async () => {
    const card = await processor.authorizeCard({
      paymentId: 'pay_remembered_card',
      card: { number: '4000000000000002', expiry: '1230', holder: 'Jane Doe' },
      amount: 1000,
      billingAddress: null,
      now,
    });
    const ach = await processor.debitAch({
      paymentId: 'pay_remembered_ach',
      accountNumber: '9876543',
      routingNumber: '021000021',
      amount: 1000,
    });
    expect(await processor.lookup('pay_remembered_card')).toEqual({ rail: 'card', authorization: card });
    expect(await processor.lookup('pay_remembered_ach')).toEqual({ rail: 'ach', outcome: ach });
    expect(await processor.lookup('pay_never_asked')).toBeNull();
  });

  it('waits latencyMs before answering, without blocking the event loop', async () => {
    const slow = new SandboxProcessor({ latencyMs: 200 });
    const started = performance.now();
    let ticks = 0;
    const ticking = setInterval(() => {
      ticks += 1;
    }, 10);
    await slow.debitAch({ paymentId: 'pay_slow', accountNumber: '12345678', routingNumber: '021000021', amount: 500 });
    clearInterval(ticking);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
    expect(ticks).toBeGreaterThan(5);
    // Remembered from the moment it was decided: a lookup during the wait finds it too.
    expect(await slow.lookup('pay_slow')).toMatchObject({ rail: 'ach', outcome: { accepted: true } });
  });
});
