import { randomBytes } from 'node:crypto';
import { keptBalances, verifyKeptFigures } from '@pps/shared/ledger';
import { queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { freePort, processTracker, stopProcess } from '../processes';
import { waitFor } from '../wait';

/**
 * Settlement workers as real processes (`npm run start:settlement`'s entry point) against real PostgreSQL and
 * Redis: two at once settle everything exactly once, a worker killed with SIGKILL mid-pass (settling, or voiding
 * lapsed authorizations) loses and doubles nothing, and a Redis that restarts empty gets its schedules back. Judged by the database.
 */

let stack: TestStack;
let creds: Credentials;
let merchantId: string;

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Settlement processes');
  merchantId = await createMerchant(stack, creds);
}, 60_000);

afterAll(async () => {
  await processes.killAll();
  await stack?.close();
});

const processes = processTracker();
const spawnTracked = processes.spawn;

/** A settlement process on this file's database, polling every second, in small batches. */
const settlementProcess = (env: Record<string, string>) =>
  spawnTracked(process.execPath, ['--import', 'tsx', 'services/settlement/src/main.ts'], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: stack.config.DATABASE_URL,
    SETTLEMENT_INTERVAL_SECONDS: '1',
    SETTLEMENT_BATCH_SIZE: '50',
    METRICS_PORT: '0', // several run at once; metrics are tested in test/platform/metrics-processes.slow.test.ts
    ...env,
  });

const entriesSum = async (ledgerAccount: string) =>
  Number(
    (await stack.sql`select sum(amount)::text as sum from ledger_entries where ledger_account = ${ledgerAccount}`)[0]!
      .sum,
  );

const newQueuePrefix = () => queuePrefix('proc', inject('runId'));

/** Inserts `count` card payments due an hour ago, each with its capture posting, and returns their id prefix. */
async function seedDue(count: number): Promise<string> {
  const prefix = `pay_seed${randomBytes(4).toString('hex')}`;
  await stack.sql`
    insert into payments (id, account_id, merchant_id, payment_type, request_type, status, amount, currency, invoice,
      gross, fee_fixed, rate_basis_points, gross_minus_net, net, code, message, settle_at, created_at, updated_at)
    select ${prefix} || lpad(i::text, 8, '0'), ${creds.accountId}, ${merchantId}, 'card', 'tokenv3', 'pending', 1000,
      'USD', 'INV-SEED', 1000, 30, 290, 59, 941, '0', 'Approved', now() - interval '1 hour',
      now() - interval '2 days', now() - interval '2 days'
    from generate_series(1, ${count}) as i`;
  await stack.sql`
    insert into ledger_entries (posting_id, account_id, payment_id, kind, ledger_account, amount, created_at)
    select 'lp_' || ${prefix} || i, ${creds.accountId}, ${prefix} || lpad(i::text, 8, '0'), 'capture', line.account,
      line.amount, now() - interval '2 days'
    from generate_series(1, ${count}) as i
    cross join (values ('external:card', -1000), (${`merchant:${merchantId}:pending`}, 941), ('operator:fees', 59))
      as line(account, amount)`;
  return prefix;
}

/** Inserts `count` card authorizations (`capture: false`) that lapsed an hour ago, and returns their id prefix. */
async function seedLapsed(count: number): Promise<string> {
  const prefix = `pay_auth${randomBytes(4).toString('hex')}`;
  await stack.sql`
    insert into payments (id, account_id, merchant_id, payment_type, request_type, status, amount, currency, invoice,
      gross, fee_fixed, rate_basis_points, gross_minus_net, net, code, message, capture_requested,
      authorization_expires_at, created_at, updated_at)
    select ${prefix} || lpad(i::text, 8, '0'), ${creds.accountId}, ${merchantId}, 'card', 'tokenv3', 'authorized',
      1000, 'USD', 'INV-SEED', 1000, 30, 290, 59, 941, '0', 'Approved', false, now() - interval '1 hour',
      now() - interval '8 days', now() - interval '8 days'
    from generate_series(1, ${count}) as i`;
  return prefix;
}

const voidedCount = async (prefix: string) =>
  Number(
    (await stack.sql`select count(*)::int as n from payments where id like ${`${prefix}%`} and status = 'voided'`)[0]!
      .n,
  );

const settledCount = async (prefix: string) =>
  Number(
    (
      await stack.sql`select count(*)::int as n from payments where id like ${`${prefix}%`} and status = 'completed'`
    )[0]!.n,
  );

/** Every seeded payment settled exactly once: one status change, one settlement posting, one event. */
async function expectSettledExactlyOnce(prefix: string, count: number) {
  const like = `${prefix}%`;
  expect(await settledCount(prefix)).toBe(count);
  const [postings] = await stack.sql`
    select count(distinct posting_id)::int as postings, count(*)::int as entries, count(distinct payment_id)::int as payments
    from ledger_entries where kind = 'settlement' and payment_id like ${like}`;
  expect(postings).toEqual({ postings: count, entries: 2 * count, payments: count });
  const [events] = await stack.sql`
    select count(*)::int as events, count(distinct resource_id)::int as resources
    from events where type = 'payment.completed' and resource_id like ${like}`;
  expect(events).toEqual({ events: count, resources: count });
  const [held] = await stack.sql`
    select coalesce(sum(amount), 0)::int as pending from ledger_entries
    where payment_id like ${like} and ledger_account = ${`merchant:${merchantId}:pending`}`;
  expect(held!.pending).toBe(0);
  const [ledger] = await stack.sql`select coalesce(sum(amount), 0)::int as total from ledger_entries`;
  expect(ledger!.total).toBe(0);
}

describe('settlement processes', () => {
  it('two processes at once settle every due payment exactly once', async () => {
    const count = 1500;
    const prefix = await seedDue(count);
    const env = { QUEUE_PREFIX: newQueuePrefix() };
    const workers = [settlementProcess(env), settlementProcess(env)];
    await waitFor(async () => (await settledCount(prefix)) === count, {
      timeoutMs: 60_000,
      what: 'every payment settled',
    });
    await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGTERM')));
    await expectSettledExactlyOnce(prefix, count);
    const [batch] = await stack.sql`
      select sum(count)::int as count, sum(net)::int as net from settlement_batches where merchant_id = ${merchantId}`;
    expect(batch!.count).toBeGreaterThanOrEqual(count);
  }, 90_000);

  it('a worker killed with SIGKILL mid-pass loses nothing and doubles nothing: the next pass finishes', async () => {
    const count = 4000;
    const prefix = await seedDue(count);
    const env = { QUEUE_PREFIX: newQueuePrefix() };
    const first = settlementProcess(env);
    await waitFor(async () => (await settledCount(prefix)) >= 200, { timeoutMs: 60_000, what: 'the first batches' });
    await stopProcess(first, 'SIGKILL');
    const atKill = await settledCount(prefix);
    expect(atKill).toBeLessThan(count); // killed mid-pass, with work left
    expect(atKill % 50).toBe(0); // whole batches only: the one in flight rolled back

    const second = settlementProcess(env);
    await waitFor(async () => (await settledCount(prefix)) === count, { timeoutMs: 90_000, what: 'the rest settled' });
    await stopProcess(second, 'SIGTERM');
    await expectSettledExactlyOnce(prefix, count);
    // The batch the kill rolled back took its balance moves with it: every kept balance is its entries' sum.
    expect((await verifyKeptFigures(stack.db)).differences).toEqual([]);
    expect(await keptBalances(stack.db, [`merchant:${merchantId}:available`])).toEqual(
      new Map([[`merchant:${merchantId}:available`, await entriesSum(`merchant:${merchantId}:available`)]]),
    );
  }, 150_000);

  it('a worker killed with SIGKILL mid-sweep of lapsed authorizations voids each once when the next finishes', async () => {
    const count = 3000;
    const prefix = await seedLapsed(count);
    const env = { QUEUE_PREFIX: newQueuePrefix() };
    const first = settlementProcess(env);
    await waitFor(async () => (await voidedCount(prefix)) >= 100, { timeoutMs: 60_000, what: 'the first batches' });
    await stopProcess(first, 'SIGKILL');
    const atKill = await voidedCount(prefix);
    expect(atKill).toBeLessThan(count);
    expect(atKill % 50).toBe(0); // whole batches only: the one in flight rolled back

    const second = settlementProcess(env);
    await waitFor(async () => (await voidedCount(prefix)) === count, { timeoutMs: 90_000, what: 'the rest voided' });
    await stopProcess(second, 'SIGTERM');
    const like = `${prefix}%`;
    const [voided] = await stack.sql`
      select count(*)::int as n from payments
      where id like ${like} and void_reason = 'authorization_expired' and voided_at is not null`;
    expect(voided!.n).toBe(count);
    const [events] = await stack.sql`
      select count(*)::int as events, count(distinct resource_id)::int as resources
      from events where type = 'payment.voided' and resource_id like ${like}`;
    expect(events).toEqual({ events: count, resources: count });
    // An authorization moved no money: voiding it posts nothing.
    expect(await stack.sql`select 1 from ledger_entries where payment_id like ${like}`).toHaveLength(0);
  }, 150_000);

  it('gets its schedules back when Redis restarts empty, and settles what came due meanwhile', async () => {
    const port = await freePort();
    const startRedis = () =>
      spawnTracked('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
    let redis = startRedis();
    const env = { QUEUE_PREFIX: newQueuePrefix(), REDIS_URL: `redis://127.0.0.1:${port}` };
    const worker = settlementProcess(env);

    const before = await seedDue(100);
    await waitFor(async () => (await settledCount(before)) === 100, {
      timeoutMs: 60_000,
      what: 'settled before the restart',
    });
    await stopProcess(redis, 'SIGKILL');
    // A pass already taken off the queue still runs to its end without Redis: let it end before seeding, or a slow
    // machine sees it claim what is seeded next.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const during = await seedDue(100);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await settledCount(during)).toBe(0); // nothing runs without Redis

    redis = startRedis(); // no persistence: it comes back with no keys, schedules included
    await waitFor(async () => (await settledCount(during)) === 100, {
      timeoutMs: 60_000,
      what: 'settled after the restart',
    });
    await stopProcess(worker, 'SIGTERM');
    await stopProcess(redis, 'SIGTERM');
    await expectSettledExactlyOnce(before, 100);
    await expectSettledExactlyOnce(during, 100);
  }, 120_000);
});
