import { addCalendarDays, pacificDate } from '@pps/shared/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cards,
  createCardToken,
  createPayment,
  postPayment,
  refundBody,
  setClock,
  tokenv3Body,
} from '../fixtures/payments';
import { manualSchedule, settledPayments } from '../fixtures/payouts';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * GET /reports/daily (payments per day by the account's clock, from the kept daily figures) and GET /balance (the
 * account's merchants' balances summed): what the console's home page reads.
 */

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
let tokenId: string;
/** The account's clock: two days of payments, today and yesterday. */
let today: string;
let yesterday: string;

const DAY_MS = 86_400_000;

beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
  ({ creds, other, merchantId, tokenId } = await createWorld(stack, { other: 'Other Daily' }));
  // Yesterday by the account's clock (the clock only moves forward: yesterday is now, today is a day on): two
  // approved and one declined.
  const now = Date.now();
  yesterday = pacificDate(new Date(now));
  const declinedToken = await createCardToken(stack, creds, cards.doNotHonor);
  await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '1000' }));
  await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '2550' }));
  await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId: declinedToken, amount: '999' }), 402);
  // Today: one approved, and a refund of it (a child: not a payment of the day).
  await setClock(stack, creds, new Date(now + DAY_MS));
  today = pacificDate(new Date(now + DAY_MS));
  const paid = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '4000' }));
  const refund = await postPayment(stack, creds, refundBody(paid.body.data.id, '100'));
  expect(refund.status).toBe(201);
});
afterAll(() => stack?.close());

const daily = (query = '', as = creds) => stack.call('GET', `/reports/daily${query}`, { as });

describe('GET /reports/daily', () => {
  it('answers the 30 days ending today by the account’s clock, every day present, with totals', async () => {
    const res = await daily();
    expect(res.status).toBe(200);
    const { attributes } = res.body.data;
    expect(res.body.data.type).toBe('dailyReports');
    expect(attributes.endDate).toBe(today);
    expect(attributes.startDate).toBe(addCalendarDays(today, -29));
    expect(attributes.days).toHaveLength(30);
    const byDate = new Map(attributes.days.map((day: { date: string }) => [day.date, day]));
    expect(byDate.get(yesterday)).toEqual({
      date: yesterday,
      attempts: 3,
      approved: 2,
      declined: 1,
      approvedAmount: '3550',
    });
    expect(byDate.get(today)).toEqual({ date: today, attempts: 1, approved: 1, declined: 0, approvedAmount: '4000' });
    expect(byDate.get(addCalendarDays(yesterday, -1))).toEqual({
      date: addCalendarDays(yesterday, -1),
      attempts: 0,
      approved: 0,
      declined: 0,
      approvedAmount: '0',
    });
    expect(attributes.totals).toEqual({ attempts: 4, approved: 3, declined: 1, approvedAmount: '7550' });
  });

  it('answers a range of the caller’s choosing, and another account only its own (none)', async () => {
    const res = await daily(`?startDate=${yesterday}&endDate=${yesterday}`);
    expect(res.body.data.attributes.days).toEqual([
      { date: yesterday, attempts: 3, approved: 2, declined: 1, approvedAmount: '3550' },
    ]);
    const theirs = await daily(`?startDate=${yesterday}&endDate=${today}`, other);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.attributes.totals).toEqual({ attempts: 0, approved: 0, declined: 0, approvedAmount: '0' });
  });

  it.each([
    ['one end only', `?startDate=2026-11-01`, 'missing_field', 'endDate'],
    ['the other end only', `?endDate=2026-11-01`, 'missing_field', 'startDate'],
    ['ends out of order', `?startDate=2026-11-02&endDate=2026-11-01`, 'invalid_date_range', 'startDate'],
    ['more than 92 days', `?startDate=2026-01-01&endDate=2026-04-03`, 'invalid_date_range', 'endDate'],
    ['not a date', `?startDate=2026-13-01&endDate=2026-12-01`, 'invalid_field', 'startDate'],
    ['a day in year 0', `?startDate=0000-01-01&endDate=0000-01-02`, 'invalid_field', 'startDate'],
  ])('400s %s, naming the parameter', async (_, query, code, parameter) => {
    const res = await daily(query);
    expect(expectError(res, 400, code).source).toEqual({ parameter });
  });

  it('answers 92 days, and 401s without credentials', async () => {
    const res = await daily('?startDate=2026-01-01&endDate=2026-04-02');
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.days).toHaveLength(92);
    expect((await stack.call('GET', '/reports/daily')).status).toBe(401);
  });
});

describe('GET /balance', () => {
  it('sums the balances of every merchant of the account, and only its own', async () => {
    const world = await createWorld(stack, { partners: ['Second'] as const });
    const second = world.partnerIds[0];
    const secondToken = await createCardToken(stack, world.creds, cards.visa);
    await manualSchedule(stack, world.creds, world.merchantId);
    await settledPayments(stack, world, ['10000']);
    await createPayment(stack, world.creds, tokenv3Body({ merchantId: second, tokenId: secondToken, amount: '5000' }));
    const each = await Promise.all(
      [world.merchantId, second].map(
        async (id) => (await stack.call('GET', `/merchants/${id}/balance`, { as: world.creds })).body.data.attributes,
      ),
    );
    const res = await stack.call('GET', '/balance', { as: world.creds });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'balances', id: world.creds.accountId });
    const sum = (field: 'pending' | 'available' | 'inTransit') =>
      String(each.reduce((total, balance) => total + Number(balance[field]), 0));
    expect(res.body.data.attributes).toEqual({
      currency: 'USD',
      pending: sum('pending'),
      available: sum('available'),
      inTransit: sum('inTransit'),
    });
    expect(Number(res.body.data.attributes.available)).toBeGreaterThan(0);
    expect(Number(res.body.data.attributes.pending)).toBeGreaterThan(0);
    const empty = await stack.call('GET', '/balance', { as: other });
    expect(empty.body.data.attributes).toEqual({ currency: 'USD', pending: '0', available: '0', inTransit: '0' });
  });
});
