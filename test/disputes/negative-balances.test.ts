import { createRequire } from 'node:module';
import { createDataCipher, runDisputes, runPayouts, SandboxProcessor } from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import { addCalendarDays, pacificDate, settleAtFor, startOfPacificDay, subtractBusinessDays } from '@pps/shared/clock';
import { verifyKeptFigures } from '@pps/shared/ledger';
import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, personalMerchantAttributes } from '../fixtures/merchants';
import { createCardToken, createPayment, setClock, tokenv3Body } from '../fixtures/payments';
import { manualSchedule } from '../fixtures/payouts';
import { type Credentials, createTestStack, type TestStack } from '../harness';

/**
 * A balance a chargeback left below zero (docs/api.md, Disputes; docs/design.md, Negative balances): carried while
 * payments might cover it, then, NEGATIVE_BALANCE_DEBIT_DAYS (5) business days on, debited from the merchant's bank
 * by the payout run: a payout of the negative amount, an ACH debit (27) in a NACHA file the project's NACHA parser
 * reads, the money in on its arrival date (a `negative_balance_debit` balance transaction); and a debit the bank
 * returns (the sandbox's R01 account) leaves the balance as negative as before, and says so (`payout.failed`).
 * The passes are run here in the order the settlement worker runs them when the clock moves.
 */
type ParsedBatch = {
  description: string;
  entries: { transactionCode: string; amount: number; dfiAccount: string }[];
};
const nacha = createRequire(import.meta.url)('@midlandsbank/node-nacha') as {
  from(text: string): {
    data: { batches: ParsedBatch[]; file: { footer: { totalCredit: number; totalDebit: number } } };
  };
};

const AMOUNT = 10_000;
const NET = 9_680; // 2.9 % + 30 cents
const FEE = 1_500;
const NEGATIVE = NET - AMOUNT - FEE; // −1,820

let stack: TestStack;
let creds: Credentials;
const log = createLogger({ level: 'silent' });

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Negative Balances');
});
afterAll(() => stack?.close());

const deps = () => ({
  db: stack.db,
  config: stack.config,
  cipher: createDataCipher(stack.config),
  processor: new SandboxProcessor({ db: stack.db }),
  bank: new SandboxProcessor({ db: stack.db }),
  log,
});

/** What the settlement worker runs for an account whose clock moved: settlement, disputes, payouts. */
async function clockPass() {
  const now = new Date();
  await runSettlementPass(deps(), { now, batchSize: 100, accountId: creds.accountId });
  await runDisputes(deps(), { now, accountId: creds.accountId });
  await runPayouts(deps(), { now, accountId: creds.accountId });
}

const accountNow = async () => {
  const [row] = await stack.sql`select clock_offset_seconds from accounts where id = ${creds.accountId}`;
  return new Date(Date.now() + Number(row!.clock_offset_seconds) * 1000);
};
/** Moves the clock to `to` (when it is ahead) and runs the passes. */
async function clockTo(to: Date) {
  if (to.getTime() > (await accountNow()).getTime()) await setClock(stack, creds, to);
  await clockPass();
}
/** Moves the clock to 09:00 Pacific `days` calendar days after the account's today. */
const daysOn = async (days: number) =>
  clockTo(new Date(startOfPacificDay(addCalendarDays(pacificDate(await accountNow()), days)).getTime() + 9 * 3600e3));

const get = (path: string) => stack.call('GET', path, { as: creds });
const available = async (merchantId: string) =>
  (await get(`/merchants/${merchantId}/balance`)).body.data.attributes as { available: string; inTransit: string };
const payoutsOf = async (merchantId: string) =>
  (await get(`/payouts?merchantId=${merchantId}&limit=100`)).body.data as { id: string; attributes: any }[];

/** A merchant (manual payouts: nothing pays it out) whose chargeback left its available balance at −1,820. */
async function negativeMerchant(bankAccountNumber?: string) {
  const merchantId = await createMerchant(
    stack,
    creds,
    bankAccountNumber
      ? { bankInfo: { ...personalMerchantAttributes().bankInfo, accountNumber: bankAccountNumber } }
      : {},
  );
  await manualSchedule(stack, creds, merchantId);
  const tokenId = await createCardToken(stack, creds, '4000000000000259');
  const paid = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: String(AMOUNT) }));
  await clockTo(new Date(new Date(paid.body.data.attributes.settleAt).getTime() + 1000));
  const [settled] = await stack.sql`select settled_at from payments where id = ${paid.body.data.id}`;
  await clockTo(new Date(settleAtFor(new Date(settled!.settled_at), 1).getTime() + 1000));
  expect(await available(merchantId)).toMatchObject({ available: String(NEGATIVE) });
  return merchantId;
}

describe('a balance that stays negative', () => {
  it('is carried four business days, debited on the fifth, and is back at zero when the debit arrives', async () => {
    const merchantId = await negativeMerchant();
    const [noted] = await stack.sql`select since from negative_balances where merchant_id = ${merchantId}`;
    expect(noted!.since).toBe(pacificDate(await accountNow()));

    // Day by day: no debit until five business days after the balance went negative.
    for (let day = 0; (await payoutsOf(merchantId)).length === 0; day += 1) {
      expect(day).toBeLessThan(10);
      await daysOn(1);
    }
    const [debit] = await payoutsOf(merchantId);
    expect(debit!.attributes).toMatchObject({
      amount: String(NEGATIVE),
      method: 'negative_balance_debit',
      status: 'pending',
    });
    expect(debit!.attributes.traceNumber).toMatch(/^\d{15}$/);
    const today = pacificDate(await accountNow());
    expect(subtractBusinessDays(today, 5) >= noted!.since).toBe(true);
    expect(subtractBusinessDays(today, 6) < noted!.since).toBe(true);
    expect(await available(merchantId)).toMatchObject({ available: '0', inTransit: String(NEGATIVE) });
    expect(await stack.sql`select 1 from negative_balances where merchant_id = ${merchantId}`).toHaveLength(0);

    // The day's NACHA file, read by the NACHA parser: a debit (27) of 18.20 from the merchant's checking account,
    // balanced by a credit of as much to the platform's own account.
    const [file] = await stack.sql`select ach_file_id as id from payouts where id = ${debit!.id}`;
    const text = await stack.call('GET', `/admin/ach-files/${file!.id}`, { headers: stack.admin });
    const parsed = nacha.from(text.body as string).data;
    expect(parsed.file.footer).toMatchObject({ totalDebit: -NEGATIVE, totalCredit: -NEGATIVE });
    expect(parsed.batches).toMatchObject([
      {
        description: 'NEGBALANCE',
        entries: [
          { transactionCode: '27', amount: -NEGATIVE },
          { transactionCode: '22', amount: -NEGATIVE, dfiAccount: stack.config.ACH_OFFSET_ACCOUNT_NUMBER },
        ],
      },
    ]);

    // Its arrival date: the money is in, a negative_balance_debit balance transaction, the balance at zero.
    await daysOn(3);
    expect((await get(`/payouts/${debit!.id}`)).body.data.attributes.status).toBe('paid');
    expect(await available(merchantId)).toMatchObject({ available: '0', inTransit: '0' });
    const rows = (await get(`/merchants/${merchantId}/balance-transactions?limit=10`)).body.data;
    expect(rows[0].attributes).toMatchObject({
      type: 'negative_balance_debit',
      amount: String(-NEGATIVE),
      net: String(-NEGATIVE),
      payoutId: debit!.id,
    });
    // It reconciles like a payout: what it carried adds up to its (negative) amount.
    const reconciliation = (await get(`/payouts/${debit!.id}/reconciliation`)).body.data.attributes;
    expect(reconciliation.totals.net).toBe(String(NEGATIVE));
    expect(reconciliation.items.map((item: any) => item.type)).toEqual(expect.arrayContaining(['payment', 'dispute']));
    expect((await verifyKeptFigures(stack.db)).differences).toEqual([]);
  });

  it('debited from an account whose bank returns it (R01): failed, and the balance negative again', async () => {
    const merchantId = await negativeMerchant('000000005501');
    for (let day = 0; (await payoutsOf(merchantId)).length === 0; day += 1) {
      expect(day).toBeLessThan(10);
      await daysOn(1);
    }
    const [debit] = await payoutsOf(merchantId);
    await daysOn(3);
    expect((await get(`/payouts/${debit!.id}`)).body.data.attributes).toMatchObject({
      status: 'failed',
      failureCode: 'R01',
      amount: String(NEGATIVE),
    });
    expect(await available(merchantId)).toMatchObject({ available: String(NEGATIVE), inTransit: '0' });
    const events = await stack.sql`
      select type from events where resource_id = ${debit!.id} order by sequence`;
    expect(events.map((event) => event.type)).toEqual(['payout.created', 'payout.failed']);
    // Noted negative again, from the day the bank returned it.
    const [noted] = await stack.sql`select since from negative_balances where merchant_id = ${merchantId}`;
    expect(noted!.since).toBe(pacificDate(await accountNow()));
    expect((await verifyKeptFigures(stack.db)).differences).toEqual([]);
  });
});
