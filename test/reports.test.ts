import { pacificDate } from '@pps/shared/clock';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualSchedule, settledPayments } from './fixtures/payouts';
import { createWorld } from './fixtures/world';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from './harness';

/** GET /reports/settlement: one day's settlement batches of the account, per merchant and in total, JSON or CSV. */

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
    const figures = { count: 2, gross: '15000', fees: '495', refunds: '0', net: '14505' };
    expect(res.body).toEqual({
      links: { self: `http://localhost:8080/reports/settlement?date=${day}` },
      data: {
        type: 'settlementReports',
        id: day,
        attributes: { date: day, currency: 'USD', merchants: [{ merchantId, ...figures }], totals: figures },
      },
    });
  });

  it('answers CSV for Accept: text/csv: a header row, a row per merchant, a total row', async () => {
    const res = await report(`?date=${day}`, creds, { accept: 'text/csv' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="settlement-${day}.csv"`);
    const text = res.body as string;
    expect(text.split('\r\n')[0]).toBe('merchantId,count,gross,fees,refunds,net');
    expect(parse(text, { columns: true })).toEqual([
      { merchantId, count: '2', gross: '15000', fees: '495', refunds: '0', net: '14505' },
      { merchantId: 'total', count: '2', gross: '15000', fees: '495', refunds: '0', net: '14505' },
    ]);
  });

  it('answers an empty report for a day with nothing settled, and for another account', async () => {
    const empty = { count: 0, gross: '0', fees: '0', refunds: '0', net: '0' };
    const none = await report('?date=2020-01-01');
    expect(none.body.data.attributes).toEqual({ date: '2020-01-01', currency: 'USD', merchants: [], totals: empty });
    const theirs = await report(`?date=${day}`, other);
    expect(theirs.body.data.attributes.merchants).toEqual([]);
    const csv = await report('?date=2020-01-01', creds, { accept: 'text/csv' });
    expect(parse(csv.body as string, { columns: true })).toEqual([{ merchantId: 'total', ...empty, count: '0' }]);
  });

  it.each([
    ['no date', '', 'missing_field'],
    ['an empty date', '?date=', 'invalid_field'],
    ['a date-time', '?date=2026-11-24T00:00:00Z', 'invalid_field'],
    ['no such day', '?date=2026-02-30', 'invalid_field'],
    ['another format', '?date=11/24/2026', 'invalid_field'],
  ])('400s %s with source.parameter date', async (_, query, code) => {
    const res: ApiResponse = await report(query);
    expect(expectError(res, 400, code).source).toEqual({ parameter: 'date' });
  });

  it('needs credentials (401)', async () => {
    const res = await stack.call('GET', `/reports/settlement?date=${pacificDate(new Date())}`);
    expect(res.status).toBe(401);
  });
});
