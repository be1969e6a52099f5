import { TZDate } from '@date-fns/tz';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { createCardToken, createPayment, postPayment, refundBody, setClock, tokenv3Body } from '../fixtures/payments';
import { createTestStack, type TestStack } from '../harness';

/**
 * The void-or-refund decision around the cutoff (23:59:59.999 America/Los_Angeles on the processing day),
 * driven by each account's sandbox clock. The clock only moves forward, so every case has its own account, and
 * the days are next year's, always ahead of the real clock.
 */

let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(() => stack?.close());

const year = new Date().getUTCFullYear() + 1;
/** The n-th Sunday (1-based) of a month of `year`, as a day of the month. */
const nthSunday = (month: number, n: number) =>
  1 + ((7 - new Date(Date.UTC(year, month - 1, 1)).getUTCDay()) % 7) + 7 * (n - 1);
/** A wall-clock time in Los Angeles, as an instant. */
const pacific = (month: number, day: number, hours: number, minutes = 0, seconds = 0) =>
  new Date(new TZDate(year, month - 1, day, hours, minutes, seconds, 'America/Los_Angeles').getTime());

const days = [
  // The cutoff in UTC is written out by hand: 23:59:59.999 PDT is 06:59:59.999Z, PST is 07:59:59.999Z.
  { name: 'an ordinary summer day (PDT)', month: 6, day: 16, cutoffUtcHour: 6 },
  { name: 'an ordinary winter day (PST)', month: 1, day: 20, cutoffUtcHour: 7 },
  { name: 'the spring-forward day (23 hours)', month: 3, day: nthSunday(3, 2), cutoffUtcHour: 6 },
  { name: 'the fall-back day (25 hours)', month: 11, day: nthSunday(11, 1), cutoffUtcHour: 7 },
];

/** A fresh account whose clock reads 00:30 Pacific on the day, with a 1000-cent card payment made then. */
async function paymentAt(month: number, day: number) {
  const creds = await stack.createAccount();
  await setClock(stack, creds, pacific(month, day, 0, 30));
  const [merchantId, tokenId] = await Promise.all([createMerchant(stack, creds), createCardToken(stack, creds)]);
  const created = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '1000' }));
  return { creds, id: created.body.data.id as string, createdAt: created.body.data.attributes.createdAt as string };
}

describe.each(days)('the void window on $name', ({ month, day, cutoffUtcHour }) => {
  const cutoff = new Date(Date.UTC(year, month - 1, day + 1, cutoffUtcHour, 59, 59, 999)).toISOString();

  it('voids a full refund the minute before the cutoff', async () => {
    const { creds, id, createdAt } = await paymentAt(month, day);
    expect(createdAt.startsWith(`${year}-`)).toBe(true);
    await setClock(stack, creds, pacific(month, day, 23, 59, 0));
    const before = await stack.call('GET', `/payments/${id}`, { as: creds });
    expect(before.body.data.attributes.voidableUntil).toBe(cutoff);

    const res = await postPayment(stack, creds, refundBody(id, '1000'));
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.transaction.refundType).toBe('void');
    expect((await stack.call('GET', `/payments/${id}`, { as: creds })).body.data.attributes.status).toBe('voided');
  });

  it('refunds the minute after the cutoff', async () => {
    const { creds, id } = await paymentAt(month, day);
    await setClock(stack, creds, pacific(month, day + 1, 0, 0, 59));
    const before = await stack.call('GET', `/payments/${id}`, { as: creds });
    expect(before.body.data.attributes.voidableUntil).toBeNull();

    const res = await postPayment(stack, creds, refundBody(id, '1000'));
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ status: 'pending', transaction: { refundType: 'refund' } });
    expect((await stack.call('GET', `/payments/${id}`, { as: creds })).body.data.attributes.status).toBe('refunded');
  });
});
