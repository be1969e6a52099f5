import { addCalendarDays, pacificDate, startOfPacificDay } from '@pps/shared/clock';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { createCardToken, createPayment, setClock, tokenv3Body } from '../fixtures/payments';
import { manualSchedule, settledPayments } from '../fixtures/payouts';
import { createWorld } from '../fixtures/world';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * GET /reports/settlement: the account's settlement batches over one settlement day or a range of them (the day the
 * money settled), per merchant and in total, JSON or CSV.
 */

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
let day: string;

beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
  const world = await createWorld(stack, { other: 'Other Reports' });
  ({ creds, other, merchantId } = world);
  await manualSchedule(stack, creds, merchantId);
  // Two payments: 10000 → net 9680 (fees 320), 5000 → 4825 (fees 175).
  await settledPayments(stack, world, ['10000', '5000']);
  const [batch] = await stack.sql<{ settlement_date: string }[]>`
    select settlement_date from settlement_batches where merchant_id = ${merchantId}`;
  day = batch!.settlement_date;
});
afterAll(() => stack?.close());

const report = (query: string, as = creds, headers: Record<string, string> = {}) =>
  stack.call('GET', `/reports/settlement${query}`, { as, headers });

describe('GET /reports/settlement', () => {
  it('answers the day’s batch figures per merchant and their totals, cents as strings', async () => {
    const res = await report(`?date=${day}`);
    expect(res.status).toBe(200);
    const figures = {
      count: 2,
      gross: '15000',
      fees: '495',
      refunds: '0',
      net: '14505',
      disputed: '0',
      disputeFees: '0',
      reinstated: '0',
    };
    expect(res.body).toEqual({
      links: { self: `http://localhost:8080/reports/settlement?date=${day}` },
      data: {
        type: 'settlementReports',
        id: day,
        attributes: {
          date: day,
          startDate: day,
          endDate: day,
          currency: 'USD',
          merchants: [{ merchantId, ...figures }],
          totals: figures,
        },
      },
    });
  });

  it('answers CSV for Accept: text/csv: a header row, a row per merchant, a total row', async () => {
    const res = await report(`?date=${day}`, creds, { accept: 'text/csv' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="settlement-${day}.csv"`);
    const text = res.body as string;
    expect(text.split('\r\n')[0]).toBe('merchantId,count,gross,fees,refunds,net,disputed,disputeFees,reinstated');
    expect(parse(text, { columns: true })).toEqual([
      {
        merchantId,
        count: '2',
        gross: '15000',
        fees: '495',
        refunds: '0',
        net: '14505',
        disputed: '0',
        disputeFees: '0',
        reinstated: '0',
      },
      {
        merchantId: 'total',
        count: '2',
        gross: '15000',
        fees: '495',
        refunds: '0',
        net: '14505',
        disputed: '0',
        disputeFees: '0',
        reinstated: '0',
      },
    ]);
  });

  it('answers an empty report for a day with nothing settled, and for another account', async () => {
    const empty = {
      count: 0,
      gross: '0',
      fees: '0',
      refunds: '0',
      net: '0',
      disputed: '0',
      disputeFees: '0',
      reinstated: '0',
    };
    const none = await report('?date=2020-01-01');
    expect(none.body.data.attributes).toEqual({
      date: '2020-01-01',
      startDate: '2020-01-01',
      endDate: '2020-01-01',
      currency: 'USD',
      merchants: [],
      totals: empty,
    });
    const theirs = await report(`?date=${day}`, other);
    expect(theirs.body.data.attributes.merchants).toEqual([]);
    const csv = await report('?date=2020-01-01', creds, { accept: 'text/csv' });
    expect(parse(csv.body as string, { columns: true })).toEqual([{ merchantId: 'total', ...empty, count: '0' }]);
  });

  it('answers a range of settlement days (startDate…endDate, inclusive) summed per merchant', async () => {
    const figures = {
      count: 2,
      gross: '15000',
      fees: '495',
      refunds: '0',
      net: '14505',
      disputed: '0',
      disputeFees: '0',
      reinstated: '0',
    };
    const before = addCalendarDays(day, -3);
    const after = addCalendarDays(day, 2);
    const res = await report(`?startDate=${before}&endDate=${after}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      links: { self: `http://localhost:8080/reports/settlement?startDate=${before}&endDate=${after}` },
      data: {
        type: 'settlementReports',
        id: `${before}..${after}`,
        attributes: {
          date: null,
          startDate: before,
          endDate: after,
          currency: 'USD',
          merchants: [{ merchantId, ...figures }],
          totals: figures,
        },
      },
    });
    // A range of one day is that day's report; a range that misses the day is empty.
    const one = await report(`?startDate=${day}&endDate=${day}`);
    expect(one.body).toEqual((await report(`?date=${day}`)).body);
    const missed = await report(`?startDate=${addCalendarDays(day, 1)}&endDate=${after}`);
    expect(missed.body.data.attributes.merchants).toEqual([]);
    const csv = await report(`?startDate=${before}&endDate=${after}`, creds, { accept: 'text/csv' });
    expect(parse(csv.body as string, { columns: true })).toEqual([
      { merchantId, ...figures, count: '2' },
      { merchantId: 'total', ...figures, count: '2' },
    ]);
  });

  it('counts money on the day it settled, not the day it was due, when the pass runs late', async () => {
    const late = await stack.createAccount('Late Reports');
    const lateMerchant = await createMerchant(stack, late);
    const tokenId = await createCardToken(stack, late);
    const payment = await createPayment(
      stack,
      late,
      tokenv3Body({ merchantId: lateMerchant, tokenId, amount: '10000' }),
    );
    const due = pacificDate(new Date(payment.body.data.attributes.settleAt));
    // The account's clock jumps three days past the day the payment was due: the pass settles it then.
    const settled = addCalendarDays(due, 3);
    await setClock(stack, late, new Date(startOfPacificDay(settled).getTime() + 3600_000));
    await waitFor(
      async () => (await stack.sql`select settled_at from payments where id = ${payment.body.data.id}`)[0]!.settled_at,
      { what: 'the late payment settled' },
    );
    const onDue = await report(`?date=${due}`, late);
    expect(onDue.body.data.attributes.merchants).toEqual([]);
    const onSettled = await report(`?date=${settled}`, late);
    expect(onSettled.body.data.attributes.totals).toEqual({
      count: 1,
      gross: '10000',
      fees: '320',
      refunds: '0',
      net: '9680',
      disputed: '0',
      disputeFees: '0',
      reinstated: '0',
    });
  });

  it.each([
    ['no date', '', 'missing_field', 'date'],
    ['an empty date', '?date=', 'invalid_field', 'date'],
    ['a date-time', '?date=2026-11-24T00:00:00Z', 'invalid_field', 'date'],
    ['no such day', '?date=2026-02-30', 'invalid_field', 'date'],
    ['another format', '?date=11/24/2026', 'invalid_field', 'date'],
    ['a day in year 0', '?date=0000-01-01', 'invalid_field', 'date'],
    ['a date and a range', '?date=2026-11-24&startDate=2026-11-20&endDate=2026-11-24', 'invalid_field', 'date'],
    ['a date and an end', '?date=2026-11-24&endDate=2026-11-24', 'invalid_field', 'date'],
    ['a start after the end', '?startDate=2026-11-25&endDate=2026-11-24', 'invalid_date_range', 'startDate'],
    ['a start alone', '?startDate=2026-11-24', 'missing_field', 'endDate'],
    ['an end alone', '?endDate=2026-11-24', 'missing_field', 'startDate'],
    ['a start that is not a day', '?startDate=2026-11-31&endDate=2026-12-01', 'invalid_field', 'startDate'],
    ['an end in another format', '?startDate=2026-11-24&endDate=12/01/2026', 'invalid_field', 'endDate'],
  ])('400s %s, naming the parameter', async (_, query, code, parameter) => {
    const res: ApiResponse = await report(query);
    expect(expectError(res, 400, code).source).toEqual({ parameter });
  });

  it('needs credentials (401)', async () => {
    const res = await stack.call('GET', `/reports/settlement?date=${pacificDate(new Date())}`);
    expect(res.status).toBe(401);
  });
});
