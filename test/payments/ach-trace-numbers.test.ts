import { pacificDate, startOfPacificDay } from '@pps/shared/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { achBody, createCardToken, createPayment, setClock, tokenv3Body } from '../fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * NACHA trace numbers over two settlement days (docs/design.md §23): each day's pass writes a file of ACH debits and
 * the payout run a file of credits; every entry of every file has its own trace number, each ACH payment and payout
 * records the one its file has, the bank's payout return finds its payout by it, and every file is stamped with the
 * clock of the pass that wrote it.
 */

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let returnedMerchantId: string;
const days: string[] = [];

type FileRow = { id: string; created_at: Date; payment_ids: string[]; payout_ids: string[] };

beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
  creds = await stack.createAccount('Trace numbers');
  merchantId = await createMerchant(stack, creds);
  // The sandbox bank returns every credit to this account (R01).
  returnedMerchantId = await createMerchant(stack, creds, {
    bankInfo: {
      bankName: 'First Test Bank',
      accountOwnership: 'personal',
      accountType: 'checking',
      accountName: 'Jane Doe',
      accountNumber: '000000005501',
      routingNumber: '021000021',
    },
  });
  const tokenId = await createCardToken(stack, creds);

  // Each round: ACH debits (one the bank returns at settlement: 5501 cents) and card payments to both merchants, then the
  // account's clock moved to the day the debits settle: that pass files the debits, the payout run the credits.
  for (let round = 0; round < 2; round += 1) {
    let achSettleAt = '';
    for (const amount of ['2000', '3000', '5501']) {
      const debit = await createPayment(stack, creds, achBody({ merchantId, amount }));
      achSettleAt = debit.body.data.attributes.settleAt;
    }
    for (const merchant of [merchantId, returnedMerchantId]) {
      await createPayment(stack, creds, tokenv3Body({ merchantId: merchant, tokenId, amount: '10000' }));
    }
    const day = pacificDate(new Date(achSettleAt));
    days.push(day);
    await setClock(stack, creds, new Date(startOfPacificDay(day).getTime() + 1000));
    await waitFor(
      async () =>
        (
          await stack.sql<{ n: number }[]>`
            select count(*)::int as n from payouts where account_id = ${creds.accountId}
              and ach_file_id is not null and created_at >= ${startOfPacificDay(day).toISOString()}::timestamptz`
        )[0]!.n,
      { until: (n) => n === 2, what: `the payouts of ${day} filed`, timeoutMs: 20_000 },
    );
    await waitFor(
      async () =>
        (
          await stack.sql<{ n: number }[]>`
            select count(*)::int as n from payments where account_id = ${creds.accountId} and status = 'pending'`
        )[0]!.n,
      { until: (n) => n === 0, what: `every payment of ${day} settled or returned`, timeoutMs: 20_000 },
    );
  }
  // The first day's payouts arrive by the second: one paid, one returned.
  await waitFor(
    async () =>
      (
        await stack.sql<{ n: number }[]>`
          select count(*)::int as n from payouts where account_id = ${creds.accountId} and status <> 'pending'`
      )[0]!.n,
    { until: (n) => n >= 2, what: "the first day's payouts ended", timeoutMs: 20_000 },
  );
}, 60_000);
afterAll(() => stack?.close());

const files = () =>
  stack.sql<FileRow[]>`select id, created_at, payment_ids, payout_ids from ach_files order by created_at, id`;

/** The trace numbers of a stored file's entries ('6' records, positions 80–94), read through the admin API. */
async function tracesOf(fileId: string): Promise<string[]> {
  const res = await stack.call('GET', `/admin/ach-files/${fileId}`, { headers: stack.admin });
  expect(res.status).toBe(200);
  return (res.body as string)
    .split('\n')
    .filter((line) => line.startsWith('6'))
    .map((line) => line.slice(79, 94));
}

describe('NACHA trace numbers over two days of files', () => {
  it('never repeats a trace number across files, and each payment and payout has the one in its file', async () => {
    const stored = await files();
    const debitFiles = stored.filter((file) => file.payment_ids.length > 0);
    const creditFiles = stored.filter((file) => file.payout_ids.length > 0);
    expect(debitFiles).toHaveLength(2);
    expect(creditFiles.length).toBeGreaterThanOrEqual(2);

    const byFile = new Map<string, string[]>();
    for (const file of stored) byFile.set(file.id, await tracesOf(file.id));
    const all = [...byFile.values()].flat();
    expect(all.length).toBeGreaterThanOrEqual(8);
    expect(new Set(all).size).toBe(all.length);
    for (const trace of all) expect(trace).toMatch(/^\d{15}$/);

    const debits = await stack.sql<{ id: string; ach_file_id: string | null; trace_number: string | null }[]>`
      select id, ach_file_id, trace_number from payments where account_id = ${creds.accountId}
        and payment_type = 'ACH' order by created_at, id`;
    expect(debits).toHaveLength(6);
    for (const debit of debits) {
      if (debit.ach_file_id !== null) expect(byFile.get(debit.ach_file_id)).toContain(debit.trace_number);
      // The API shows the trace number of its entry, null for a debit never filed.
      const res = await stack.call('GET', `/payments/${debit.id}`, { as: creds });
      expect(res.body.data.attributes.traceNumber).toBe(debit.trace_number);
    }
    // The returned debits (5501 cents) never reached a file: no trace number.
    expect(debits.filter((row) => row.ach_file_id === null)).toHaveLength(2);
    expect(debits.filter((row) => row.trace_number === null)).toHaveLength(2);

    const payouts = await stack.sql<{ id: string; ach_file_id: string; trace_number: string }[]>`
      select id, ach_file_id, trace_number from payouts where account_id = ${creds.accountId} order by created_at, id`;
    expect(payouts).toHaveLength(4);
    for (const payout of payouts) {
      expect(byFile.get(payout.ach_file_id)).toContain(payout.trace_number);
      const res = await stack.call('GET', `/payouts/${payout.id}`, { as: creds });
      expect(res.body.data.attributes.traceNumber).toBe(payout.trace_number);
    }
    // Every entry of every file belongs to exactly one payment or payout.
    const recorded = [...debits.map((row) => row.trace_number), ...payouts.map((row) => row.trace_number)];
    expect(recorded.filter((trace) => trace !== null).sort()).toEqual([...all].sort());
  });

  it('matches the bank’s return of a payout by its trace number', async () => {
    const ended = await stack.sql<{ merchant_id: string; status: string; failure_code: string | null }[]>`
      select merchant_id, status, failure_code from payouts where account_id = ${creds.accountId}
        and status <> 'pending' order by merchant_id`;
    expect(ended).toEqual(
      [
        { merchant_id: merchantId, status: 'paid', failure_code: null },
        { merchant_id: returnedMerchantId, status: 'failed', failure_code: 'R01' },
      ].sort((a, b) => a.merchant_id.localeCompare(b.merchant_id)),
    );
  });

  it("stamps a pass's debit file and payout file with the same clock: the account's", async () => {
    const stored = await files();
    const listed = await stack.call('GET', '/admin/ach-files?limit=100', { headers: stack.admin });
    expect(listed.status).toBe(200);
    const createdAt = new Map<string, string>(
      listed.body.data.map((file: { id: string; attributes: { createdAt: string } }) => [
        file.id,
        file.attributes.createdAt,
      ]),
    );
    for (const day of days) {
      const ofDay = stored.filter((file) => pacificDate(new Date(createdAt.get(file.id)!)) === day);
      // The day's debit file and payout file, both on the account's clock (days ahead of the real one).
      expect(ofDay.filter((file) => file.payment_ids.length > 0)).toHaveLength(1);
      expect(ofDay.filter((file) => file.payout_ids.length > 0).length).toBeGreaterThanOrEqual(1);
    }
    for (const file of stored) {
      expect(new Date(createdAt.get(file.id)!).getTime()).toBeGreaterThanOrEqual(startOfPacificDay(days[0]!).getTime());
    }
  });
});
