import { randomBytes } from 'node:crypto';
import { createDataCipher } from '@pps/payments';
import { addBusinessDays, pacificDate, startOfPacificDay } from '@pps/shared/clock';
import { queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { processTracker, stopProcess } from '../processes';
import { waitFor } from '../wait';

/**
 * The payout run in real settlement processes (`services/settlement/src/main.ts`) against real PostgreSQL and Redis:
 * two at once pay every due merchant exactly once, and a process killed with SIGKILL mid-run loses and doubles
 * nothing once another takes over. Merchants are seeded straight into the database, each with an available
 * balance; judged by the database.
 */

let stack: TestStack;
let creds: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Payout processes');
  // The account's clock at noon Pacific of the next business day: a business day whatever day the test runs.
  const noon = new Date(startOfPacificDay(addBusinessDays(pacificDate(new Date()), 1)).getTime() + 12 * 3600_000);
  const offset = Math.ceil((noon.getTime() - Date.now()) / 1000);
  await stack.sql`update accounts set clock_offset_seconds = ${offset} where id = ${creds.accountId}`;
}, 60_000);

afterAll(async () => {
  await processes.killAll();
  await stack?.close();
});

const processes = processTracker();

/** A settlement process on this file's database, running the payout run every second in small batches. */
const settlementProcess = (env: Record<string, string>) =>
  processes.spawn(process.execPath, ['--import', 'tsx', 'services/settlement/src/main.ts'], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: stack.config.DATABASE_URL,
    SETTLEMENT_INTERVAL_SECONDS: '1',
    PAYOUT_INTERVAL_SECONDS: '1',
    METRICS_PORT: '0',
    ...env,
  });

const newQueuePrefix = () => queuePrefix('payouts', inject('runId'));

/**
 * `count` active merchants of the account with a daily schedule, a bank account version and an available balance
 * (a `payment` balance transaction of 1000 + i cents and its balanced ledger entries); returns their id prefix.
 */
async function seedMerchants(count: number): Promise<string> {
  const prefix = `mer_${randomBytes(4).toString('hex')}`;
  const cipher = createDataCipher(stack.config);
  const accountId = creds.accountId;
  await stack.sql`
    insert into merchants (id, account_id, status, account_type, account_name, email, personal_info,
      personal_address, verification_data, ssn_enc, ssn_last4, birth_date_enc, birth_date_last4, email_index,
      tax_id_index)
    select ${prefix} || lpad(i::text, 6, '0'), ${accountId}, 'active', 'personal', 'Seeded ' || i,
      'seed@example.com', '{}', '{}', '{}', 'x', '0000', 'x', '1985', md5('e' || ${prefix} || i),
      md5('t' || ${prefix} || i)
    from generate_series(1, ${count}) as i`;
  await stack.sql`
    insert into merchant_bank_accounts (id, merchant_id, version, bank_name, account_ownership, account_type,
      account_name, account_number_enc, routing_number_enc, last4, routing_last4)
    select 'bnk_' || ${prefix} || i, ${prefix} || lpad(i::text, 6, '0'), 1, 'Seed Bank', 'personal', 'checking',
      'Seed Owner', ${cipher.encrypt('000123456789')}, ${cipher.encrypt('021000021')}, '6789', '0021'
    from generate_series(1, ${count}) as i`;
  await stack.sql`
    insert into balance_transactions (id, account_id, merchant_id, type, amount, fee, net, source_id, posting_id,
      status, available_on, created_at)
    select 'txn_' || ${prefix} || i, ${accountId}, ${prefix} || lpad(i::text, 6, '0'), 'payment', 1000 + i, 0,
      1000 + i, 'pay_' || ${prefix} || i, 'lp_' || ${prefix} || i, 'available', now() - interval '1 day',
      now() - interval '1 day'
    from generate_series(1, ${count}) as i`;
  await stack.sql`
    insert into ledger_entries (posting_id, account_id, payment_id, kind, ledger_account, amount, created_at)
    select 'lp_' || ${prefix} || i, ${accountId}, 'pay_' || ${prefix} || i, 'capture', line.account, line.amount,
      now() - interval '1 day'
    from generate_series(1, ${count}) as i
    cross join lateral (values ('external:card', -(1000 + i)),
      ('merchant:' || ${prefix} || lpad(i::text, 6, '0') || ':available', 1000 + i)) as line(account, amount)`;
  // Last: the schedules make them due.
  await stack.sql`
    insert into payout_schedules (merchant_id, account_id, interval, created_at, updated_at)
    select ${prefix} || lpad(i::text, 6, '0'), ${accountId}, 'daily', now(), now()
    from generate_series(1, ${count}) as i`;
  return prefix;
}

const filedCount = async (prefix: string) =>
  Number(
    (
      await stack.sql`
        select count(*)::int as n from payouts where merchant_id like ${`${prefix}%`} and ach_file_id is not null`
    )[0]!.n,
  );

/** Every seeded merchant paid out exactly once, its whole balance, filed once, with one event and one posting. */
async function expectPaidExactlyOnce(prefix: string, count: number) {
  const like = `${prefix}%`;
  const [payouts] = await stack.sql`
    select count(*)::int as payouts, count(distinct merchant_id)::int as merchants,
      count(*) filter (where amount = 1000 + substr(merchant_id, ${prefix.length + 1})::int)::int as whole,
      count(distinct trace_number || ach_file_id)::int as traces
    from payouts where merchant_id like ${like}`;
  expect(payouts).toEqual({ payouts: count, merchants: count, whole: count, traces: count });
  const [files] = await stack.sql`
    select count(*)::int as entries, count(distinct id)::int as payouts from (
      select jsonb_array_elements_text(payout_ids) as id from ach_files) as filed where id in (
      select id from payouts where merchant_id like ${like})`;
  expect(files).toEqual({ entries: count, payouts: count });
  const [events] = await stack.sql`
    select count(*)::int as events, count(distinct resource_id)::int as resources from events
    where type = 'payout.created' and resource_id in (select id from payouts where merchant_id like ${like})`;
  expect(events).toEqual({ events: count, resources: count });
  const [postings] = await stack.sql`
    select count(distinct posting_id)::int as postings from ledger_entries
    where kind = 'payout' and payment_id in (select id from payouts where merchant_id like ${like})`;
  expect(postings!.postings).toBe(count);
  const [balances] = await stack.sql`
    select coalesce(sum(amount) filter (where ledger_account like '%:available'), 0)::int as available,
      coalesce(sum(amount) filter (where ledger_account like '%:in_transit'), 0)::int as in_transit
    from ledger_entries where ledger_account like ${`merchant:${prefix}%`}`;
  expect(balances!.available).toBe(0);
  expect(balances!.in_transit).toBe(count * 1000 + (count * (count + 1)) / 2);
  const [unpaid] = await stack.sql`
    select count(*)::int as n from balance_transactions where merchant_id like ${like} and payout_id is null`;
  expect(unpaid!.n).toBe(0);
  const [ledger] = await stack.sql`select coalesce(sum(amount), 0)::int as total from ledger_entries`;
  expect(ledger!.total).toBe(0);
}

describe('payout processes', () => {
  it('two processes running the payout run at once pay every due merchant exactly once', async () => {
    const count = 300;
    const env = { QUEUE_PREFIX: newQueuePrefix(), PAYOUT_BATCH_SIZE: '20', SETTLEMENT_CONCURRENCY: '2' };
    const workers = [settlementProcess(env), settlementProcess(env)];
    const prefix = await seedMerchants(count);
    await waitFor(async () => (await filedCount(prefix)) === count, {
      timeoutMs: 60_000,
      what: 'every merchant paid out and filed',
    });
    // A few more runs find nothing left to pay.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGTERM')));
    await expectPaidExactlyOnce(prefix, count);
  }, 90_000);

  it('a process killed with SIGKILL mid-run loses nothing and doubles nothing: the next run finishes', async () => {
    const count = 3000;
    const env = { QUEUE_PREFIX: newQueuePrefix(), PAYOUT_BATCH_SIZE: '10' };
    const first = settlementProcess(env);
    const prefix = await seedMerchants(count);
    const made = async () =>
      Number((await stack.sql`select count(*)::int as n from payouts where merchant_id like ${`${prefix}%`}`)[0]!.n);
    await waitFor(async () => (await made()) >= 100, { timeoutMs: 60_000, what: 'the first batches' });
    await stopProcess(first, 'SIGKILL');
    const atKill = await made();
    expect(atKill).toBeLessThan(count); // killed mid-run, with merchants left
    expect(atKill % 10).toBe(0); // whole batches only: the one in flight rolled back
    const [considered] = await stack.sql`
      select count(*)::int as n from payout_schedules where merchant_id like ${`${prefix}%`} and last_run_on is not null`;
    expect(considered!.n).toBe(atKill); // schedules marked with their payouts, nothing more

    const second = settlementProcess(env);
    await waitFor(async () => (await filedCount(prefix)) === count, {
      timeoutMs: 120_000,
      what: 'the rest paid out and filed',
    });
    await stopProcess(second, 'SIGTERM');
    await expectPaidExactlyOnce(prefix, count);
  }, 180_000);
});
