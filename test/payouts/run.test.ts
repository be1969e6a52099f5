import { createRequire } from 'node:module';
import { addBusinessDays, dayOfWeek, pacificDate, startOfPacificDay } from '@pps/shared/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBusinessMerchant, createMerchant } from '../fixtures/merchants';
import { createCardToken, createPayment, setClock, tokenv3Body } from '../fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * The payout run through the public API: card payments settle when the account's sandbox clock moves, and the
 * same job then pays out every due merchant (docs/design.md, Payouts), files the credits into a NACHA file and,
 * a business day later, ends each payout as the sandbox bank answers. Judged by the database and the file.
 */

let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
});
afterAll(() => stack?.close());

type ParsedEntry = { transactionCode: string; amount: number; dfiAccount: string; traceNumber: number };
type ParsedBatch = { entryClassCode: string; description: string; entries: ParsedEntry[] };
const nacha = createRequire(import.meta.url)('@midlandsbank/node-nacha') as {
  from(text: string): {
    data: { batches: ParsedBatch[]; file: { footer: { totalCredit: number; totalDebit: number } } };
  };
};

const bankInfo = (overrides: Record<string, unknown>) => ({
  bankInfo: {
    bankName: 'First Test Bank',
    accountOwnership: 'personal',
    accountType: 'checking',
    accountName: 'Jane Doe',
    accountNumber: '000123456789',
    routingNumber: '021000021',
    ...overrides,
  },
});

const sum = async (ledgerAccount: string) =>
  Number(
    (
      await stack.sql`select coalesce(sum(amount), 0)::int as total from ledger_entries where ledger_account = ${ledgerAccount}`
    )[0]!.total,
  );
const balances = async (merchantId: string) => ({
  pending: await sum(`merchant:${merchantId}:pending`),
  available: await sum(`merchant:${merchantId}:available`),
  inTransit: await sum(`merchant:${merchantId}:in_transit`),
});

const payoutsOf = (merchantId: string) =>
  stack.sql`
    select id, amount::int, status, arrival_date, ach_file_id, trace_number, failure_code, failure_message,
      bank_account_id, paid_at, failed_at
    from payouts where merchant_id = ${merchantId} order by created_at, id`;

/** What a merchant's settled card payments made available: the net of its `payment` balance transactions. */
const netOf = async (merchantId: string) =>
  Number(
    (
      await stack.sql`select coalesce(sum(net), 0)::int as net from balance_transactions where merchant_id = ${merchantId} and type = 'payment'`
    )[0]!.net,
  );

/** Pays `amount` cents to each merchant by card now; returns the business day they settle (B1). */
async function pay(creds: Credentials, merchantIds: string[], amount = '10000'): Promise<string> {
  const tokenId = await createCardToken(stack, creds);
  let settleAt = '';
  for (const merchantId of merchantIds) {
    const created = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount }));
    settleAt = created.body.data.attributes.settleAt;
  }
  return pacificDate(new Date(settleAt));
}

/** Moves the account's clock to one second past midnight Pacific of `day`: its settlement, then its payouts. */
const moveTo = (creds: Credentials, day: string) =>
  setClock(stack, creds, new Date(startOfPacificDay(day).getTime() + 1000));

const waitForPayouts = (merchantId: string, what: string, until: (rows: Record<string, any>[]) => boolean) =>
  waitFor(() => payoutsOf(merchantId), { until, what, timeoutMs: 20_000 });

describe('the payout run', () => {
  it('pays each due merchant its whole available balance in one NACHA file, then paid or returned a day later', async () => {
    const creds = await stack.createAccount('Payout run');
    const personal = await createMerchant(stack, creds);
    const business = await createBusinessMerchant(
      stack,
      creds,
      bankInfo({ accountOwnership: 'business', accountType: 'savings', accountName: 'Acme Widgets LLC' }),
    );
    const returned = await createMerchant(stack, creds, bankInfo({ accountNumber: '000000005501' }));
    const small = await createMerchant(stack, creds);
    const b1 = await pay(creds, [personal, business, returned]);
    await pay(creds, [small], '100'); // net 67: below PAYOUT_MINIMUM (100)
    const b2 = addBusinessDays(b1, 1);

    await moveTo(creds, b1);
    const paidOut = [personal, business, returned];
    for (const merchantId of paidOut) {
      await waitForPayouts(merchantId, `${merchantId} paid out and filed`, (rows) => rows[0]?.ach_file_id);
    }
    const made = new Map<string, Record<string, any>>();
    for (const merchantId of paidOut) {
      const rows = await payoutsOf(merchantId);
      expect(rows).toHaveLength(1);
      const payout = rows[0]!;
      made.set(merchantId, payout);
      const net = await netOf(merchantId);
      expect(payout).toMatchObject({ amount: net, status: 'pending', arrival_date: b2 });
      expect(await balances(merchantId)).toEqual({ pending: 0, available: 0, inTransit: net });
      // The payout carries the balance transactions it paid.
      const carried = await stack.sql`
        select type, payout_id from balance_transactions where merchant_id = ${merchantId} and type = 'payment'`;
      expect(carried).toEqual([{ type: 'payment', payout_id: payout.id }]);
      const [bank] = await stack.sql`
        select id from merchant_bank_accounts where merchant_id = ${merchantId} and superseded_at is null`;
      expect(payout.bank_account_id).toBe(bank!.id);
    }
    // Below the minimum: nothing paid, the balance carried forward, the merchant considered today all the same.
    expect(await payoutsOf(small)).toEqual([]);
    expect(await balances(small)).toEqual({ pending: 0, available: 67, inTransit: 0 });
    const [schedule] = await stack.sql`select last_run_on from payout_schedules where merchant_id = ${small}`;
    expect(schedule!.last_run_on).toBe(b1);

    // One NACHA file of credits: PPD for personal accounts, CCD for the business one; 22 checking, 32 savings.
    const fileIds = new Set([...made.values()].map((payout) => payout.ach_file_id));
    expect(fileIds.size).toBe(1);
    const [fileId] = [...fileIds] as [string];
    const [stored] =
      await stack.sql`select payment_ids, payout_ids, total_credit::int from ach_files where id = ${fileId}`;
    expect(stored!.payment_ids).toEqual([]);
    expect([...stored!.payout_ids].sort()).toEqual([...made.values()].map((payout) => payout.id).sort());
    const total = [...made.values()].reduce((a, payout) => a + payout.amount, 0);
    expect(stored!.total_credit).toBe(total);
    const file = await stack.call('GET', `/admin/ach-files/${fileId}`, { headers: stack.admin });
    expect(file.status).toBe(200);
    const parsed = nacha.from(file.body as string).data;
    expect(parsed.file.footer).toMatchObject({ totalDebit: 0, totalCredit: total });
    expect(parsed.batches.every((batch) => batch.description === 'PAYOUT')).toBe(true);
    const entries = parsed.batches.flatMap((batch) =>
      batch.entries.map((entry) => ({ ...entry, secCode: batch.entryClassCode })),
    );
    expect(entries).toHaveLength(3);
    const entryOf = (merchantId: string) =>
      entries.find((entry) => String(entry.traceNumber) === String(Number(made.get(merchantId)!.trace_number)))!;
    expect(entryOf(personal)).toMatchObject({
      secCode: 'PPD',
      transactionCode: '22',
      amount: made.get(personal)!.amount,
      dfiAccount: '000123456789',
    });
    expect(entryOf(business)).toMatchObject({
      secCode: 'CCD',
      transactionCode: '32',
      amount: made.get(business)!.amount,
    });
    expect(entryOf(returned)).toMatchObject({ secCode: 'PPD', transactionCode: '22', dfiAccount: '000000005501' });
    expect(entries.reduce((a, entry) => a + entry.amount, 0)).toBe(total);

    // The next business day by the account's clock: the bank answers.
    await moveTo(creds, b2);
    for (const merchantId of paidOut) {
      await waitForPayouts(merchantId, `${merchantId} ended`, (rows) => rows[0]?.status !== 'pending');
    }
    for (const merchantId of [personal, business]) {
      const [payout] = await payoutsOf(merchantId);
      expect(payout).toMatchObject({ status: 'paid', failure_code: null, failed_at: null });
      expect(new Date(payout!.paid_at).getTime()).toBeGreaterThanOrEqual(startOfPacificDay(b2).getTime());
      expect(await balances(merchantId)).toEqual({ pending: 0, available: 0, inTransit: 0 });
      const own = await stack.sql`
        select net::int, payout_id from balance_transactions where merchant_id = ${merchantId} and type = 'payout'`;
      expect(own).toEqual([{ net: -payout!.amount, payout_id: payout!.id }]);
    }
    const [failed] = await payoutsOf(returned);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'R01', failure_message: 'Insufficient funds' });
    expect(await balances(returned)).toEqual({ pending: 0, available: failed!.amount, inTransit: 0 });
    const moves = await stack.sql`
      select type, net::int from balance_transactions where merchant_id = ${returned} and type like 'payout%'
      order by created_at, id`;
    expect(moves).toEqual([
      { type: 'payout', net: -failed!.amount },
      { type: 'payout_failure', net: failed!.amount },
    ]);
    // Σ net of each merchant's balance transactions is its pending + available + in-transit.
    for (const merchantId of [...paidOut, small]) {
      const [row] = await stack.sql`
        select coalesce(sum(net), 0)::int as net from balance_transactions where merchant_id = ${merchantId}`;
      const { pending, available, inTransit } = await balances(merchantId);
      expect(row!.net).toBe(pending + available + inTransit);
    }

    const events = await stack.sql`
      select type, resource_id, payload from events where account_id = ${creds.accountId} and type like 'payout.%'
      order by created_at, sequence`;
    const typesOf = (merchantId: string) =>
      events.filter((event) => event.resource_id === made.get(merchantId)!.id).map((event) => event.type);
    expect(typesOf(personal)).toEqual(['payout.created', 'payout.paid']);
    expect(typesOf(business)).toEqual(['payout.created', 'payout.paid']);
    expect(typesOf(returned)).toEqual(['payout.created', 'payout.failed']);
    const failedEvent = events.find((event) => event.type === 'payout.failed')!;
    expect(failedEvent.payload.data).toMatchObject({
      previousStatus: 'pending',
      attributes: { status: 'failed', failureCode: 'R01', failureMessage: 'Insufficient funds' },
    });
    const [ledger] = await stack.sql`select coalesce(sum(amount), 0)::int as total from ledger_entries`;
    expect(ledger!.total).toBe(0);

    const metrics = await stack.metrics.registry.getMetricsAsJSON();
    const counted = (name: string, status: string) =>
      metrics.find((metric) => metric.name === name)?.values.find((value) => value.labels.status === status)?.value;
    expect(counted('pps_payouts_total', 'created')).toBeGreaterThanOrEqual(3);
    expect(counted('pps_payouts_total', 'paid')).toBeGreaterThanOrEqual(2);
    expect(counted('pps_payouts_total', 'failed')).toBeGreaterThanOrEqual(1);
    expect(counted('pps_payout_amount_cents_total', 'failed')).toBeGreaterThanOrEqual(failed!.amount);
  });

  it('pays weekly, monthly and delayed schedules on their day only, and manual ones never', async () => {
    const creds = await stack.createAccount('Payout schedules');
    const [daily, weekly, monthly, manual, delayed] = [
      await createMerchant(stack, creds),
      await createMerchant(stack, creds),
      await createMerchant(stack, creds),
      await createMerchant(stack, creds),
      await createMerchant(stack, creds),
    ];
    const b1 = await pay(creds, [daily, weekly, monthly, manual, delayed]);
    const b2 = addBusinessDays(b1, 1);
    const b3 = addBusinessDays(b1, 2);
    const weekdays = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
    // Set in SQL: the schedule's PUT endpoint is not this test's subject.
    await stack.sql`update payout_schedules set interval = 'weekly', weekly_anchor = ${weekdays[dayOfWeek(b2)]!}
      where merchant_id = ${weekly}`;
    await stack.sql`update payout_schedules set interval = 'monthly', monthly_anchor = ${Number(b3.slice(8))}
      where merchant_id = ${monthly}`;
    await stack.sql`update payout_schedules set interval = 'manual' where merchant_id = ${manual}`;
    await stack.sql`update payout_schedules set delay_days = 1 where merchant_id = ${delayed}`;

    const counts = async () =>
      Object.fromEntries(
        await Promise.all(
          Object.entries({ daily, weekly, monthly, manual, delayed }).map(async ([name, id]) => [
            name,
            (await payoutsOf(id)).length,
          ]),
        ),
      );

    await moveTo(creds, b1);
    await waitForPayouts(daily, 'the daily payout', (rows) => rows.length === 1);
    // The same transaction considered every merchant of the account: the others were not due, or held back.
    expect(await counts()).toEqual({ daily: 1, weekly: 0, monthly: 0, manual: 0, delayed: 0 });
    expect((await balances(delayed)).available).toBe(await netOf(delayed));

    await moveTo(creds, b2);
    await waitForPayouts(weekly, 'the weekly payout', (rows) => rows.length === 1);
    expect(await counts()).toEqual({ daily: 1, weekly: 1, monthly: 0, manual: 0, delayed: 1 });
    expect((await payoutsOf(delayed))[0]!.amount).toBe(await netOf(delayed));

    await moveTo(creds, b3);
    await waitForPayouts(monthly, 'the monthly payout', (rows) => rows.length === 1);
    expect(await counts()).toEqual({ daily: 1, weekly: 1, monthly: 1, manual: 0, delayed: 1 });
    expect(await balances(manual)).toMatchObject({ available: await netOf(manual), inTransit: 0 });
    const runs = await stack.sql`
      select merchant_id, last_run_on from payout_schedules where account_id = ${creds.accountId}`;
    const lastRun = new Map(runs.map((row) => [row.merchant_id, row.last_run_on]));
    expect(lastRun.get(daily)).toBe(b3);
    expect(lastRun.get(weekly)).toBe(b2);
    expect(lastRun.get(monthly)).toBe(b3);
    expect(lastRun.get(manual)).toBeNull();
  });

  it('holds back money that became available within the delay, and pays it once the delay has passed', async () => {
    const creds = await stack.createAccount('Payout delay');
    const merchantId = await createMerchant(stack, creds);
    await stack.sql`update payout_schedules set delay_days = 2 where merchant_id = ${merchantId}`;
    const b1 = await pay(creds, [merchantId], '10000');
    const net = await netOf(merchantId);
    await moveTo(creds, b1);
    await waitFor(() => balances(merchantId), { until: (b) => b.available === net, what: 'settled' });
    // The next day a second payment settles; neither is old enough yet.
    const tokenId = await createCardToken(stack, creds);
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '5000' }));
    const b2 = addBusinessDays(b1, 1);
    await moveTo(creds, b2);
    await waitFor(() => balances(merchantId), { until: (b) => b.pending === 0, what: 'the second settled' });
    const second = (await netOf(merchantId)) - net;
    await moveTo(creds, addBusinessDays(b1, 2));
    // Two business days after b1: b1's money is paid, b2's is held back until the day after.
    const [first] = await waitForPayouts(merchantId, 'the first payout', (rows) => rows.length === 1);
    expect(first!.amount).toBe(net);
    expect(await balances(merchantId)).toMatchObject({ available: second });
    await moveTo(creds, addBusinessDays(b1, 3));
    const rows = await waitForPayouts(merchantId, 'the second payout', (found) => found.length === 2);
    expect(rows[1]!.amount).toBe(second);
  });

  it('pays a business merchant created with the default bank fixture by CCD', async () => {
    const creds = await stack.createAccount('Payout CCD');
    const merchantId = await createBusinessMerchant(stack, creds); // a business checking account
    const b1 = await pay(creds, [merchantId]);
    await moveTo(creds, b1);
    const [payout] = await waitForPayouts(merchantId, 'the payout filed', (rows) => rows[0]?.ach_file_id);
    const file = await stack.call('GET', `/admin/ach-files/${payout!.ach_file_id}`, { headers: stack.admin });
    const [batch] = nacha.from(file.body as string).data.batches;
    expect(batch).toMatchObject({ entryClassCode: 'CCD', description: 'PAYOUT' });
    expect(batch!.entries[0]).toMatchObject({ transactionCode: '22', amount: payout!.amount });
  });

  it('files a manual payout at the next run and ends it a business day later', async () => {
    const creds = await stack.createAccount('Payout manual filing');
    const merchantId = await createMerchant(stack, creds);
    await stack.sql`update payout_schedules set interval = 'manual' where merchant_id = ${merchantId}`;
    const b1 = await pay(creds, [merchantId]);
    await moveTo(creds, b1);
    const net = await netOf(merchantId);
    await waitFor(() => balances(merchantId), { until: (b) => b.available === net, what: 'settled' });
    const made = await stack.call('POST', '/payouts', {
      as: creds,
      body: { data: { type: 'payouts', attributes: { merchantId, amount: '1000' } } },
    });
    expect(made.status).toBe(201);
    expect(made.body.data.attributes).toMatchObject({ status: 'pending', traceNumber: null });
    // The clock's next move runs the account's payouts: the manual payout goes into a file then.
    await setClock(stack, creds, new Date(startOfPacificDay(b1).getTime() + 3600_000));
    const [filed] = await waitForPayouts(merchantId, 'the manual payout filed', (rows) => rows[0]?.ach_file_id);
    expect(filed!.trace_number).toMatch(/^\d{15}$/);
    const file = await stack.call('GET', `/admin/ach-files/${filed!.ach_file_id}`, { headers: stack.admin });
    const entries = nacha.from(file.body as string).data.batches.flatMap((batch) => batch.entries);
    expect(entries).toMatchObject([{ transactionCode: '22', amount: 1000 }]);
    const listed = await stack.call('GET', '/admin/ach-files?limit=100', { headers: stack.admin });
    const entry = listed.body.data.find((row: { id: string }) => row.id === filed!.ach_file_id);
    expect(entry.attributes).toMatchObject({ paymentIds: [], payoutIds: [made.body.data.id], totalCredit: '1000' });
    await moveTo(creds, filed!.arrival_date);
    await waitForPayouts(merchantId, 'the manual payout paid', (rows) => rows[0]?.status === 'paid');
    expect(await balances(merchantId)).toEqual({ pending: 0, available: net - 1000, inTransit: 0 });
  });
});
