import { randomBytes } from 'node:crypto';
import { verifyKeptFigures } from '@pps/shared/ledger';
import { queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { processTracker, stopProcess } from '../processes';
import { waitFor } from '../wait';

/**
 * The dispute run in real settlement processes (`npm run start:settlement`'s entry point): two at once, or one killed
 * with SIGKILL while it stores the network's disputes and then started again, store every dispute once, take its
 * money once and write its events once. Judged by the database.
 */

let stack: TestStack;
let creds: Credentials;
let merchantId: string;

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Dispute processes');
  merchantId = await createMerchant(stack, creds);
}, 60_000);

const processes = processTracker();
afterAll(async () => {
  await processes.killAll();
  await stack?.close();
});

/** A settlement process on this file's database, its pass (and so its dispute run) every second. */
const settlementProcess = (env: Record<string, string>) =>
  processes.spawn(process.execPath, ['--import', 'tsx', 'services/settlement/src/main.ts'], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: stack.config.DATABASE_URL,
    SETTLEMENT_INTERVAL_SECONDS: '1',
    METRICS_PORT: '0',
    ...env,
  });

/**
 * `count` card payments of the sandbox's chargeback card, settled a week ago (so the network has opened their
 * disputes), as the sandbox notes them when it approves them. Returns their id prefix.
 */
async function seedDisputable(count: number): Promise<string> {
  const prefix = `pay_disp${randomBytes(4).toString('hex')}`;
  await stack.sql`
    insert into payments (id, account_id, merchant_id, payment_type, request_type, status, amount, currency, invoice,
      gross, fee_fixed, rate_basis_points, gross_minus_net, net, code, message, card, settle_at, settled_at,
      created_at, updated_at)
    select ${prefix} || lpad(i::text, 8, '0'), ${creds.accountId}, ${merchantId}, 'card', 'tokenv3', 'completed',
      1000, 'USD', 'INV-SEED', 1000, 30, 290, 59, 941, '0', 'Approved',
      '{"brand":"Visa","last4":"0259","expiry":"1230","holder":"Dee Spute"}'::jsonb,
      now() - interval '7 days', now() - interval '7 days', now() - interval '8 days', now() - interval '7 days'
    from generate_series(1, ${count}) as i`;
  await stack.sql`
    insert into sandbox_disputes (payment_id, phase, reason, created_at)
    select ${prefix} || lpad(i::text, 8, '0'), 'chargeback', 'fraudulent', now() - interval '8 days'
    from generate_series(1, ${count}) as i`;
  return prefix;
}

const openedCount = async (prefix: string) =>
  Number((await stack.sql`select count(*)::int as n from disputes where payment_id like ${`${prefix}%`}`)[0]!.n);

/** Every seeded payment disputed once: one dispute, one withdrawal posting, one pair of events, one mark. */
async function expectDisputedOnce(prefix: string, count: number) {
  const like = `${prefix}%`;
  const [stored] = await stack.sql`
    select count(*)::int as disputes, count(distinct payment_id)::int as payments,
      count(*) filter (where withdrawn = 1000)::int as withdrawn
    from disputes where payment_id like ${like}`;
  expect(stored).toEqual({ disputes: count, payments: count, withdrawn: count });
  const [postings] = await stack.sql`
    select count(distinct e.posting_id)::int as postings, coalesce(sum(e.amount), 0)::int as total
    from ledger_entries e join disputes d on d.id = e.payment_id
    where d.payment_id like ${like} and e.kind = 'dispute'`;
  expect(postings).toEqual({ postings: count, total: 0 });
  const [events] = await stack.sql`
    select count(*) filter (where ev.type = 'dispute.created')::int as created,
      count(*) filter (where ev.type = 'dispute.funds_withdrawn')::int as withdrawn,
      count(distinct ev.resource_id)::int as resources
    from events ev join disputes d on d.id = ev.resource_id where d.payment_id like ${like}`;
  expect(events).toEqual({ created: count, withdrawn: count, resources: count });
  const [marks] = await stack.sql`
    select count(*)::int as n from payments where id like ${like} and jsonb_array_length(disputes) = 1`;
  expect(marks!.n).toBe(count);
  expect((await verifyKeptFigures(stack.db)).differences).toEqual([]);
}

describe('the dispute run in settlement processes', () => {
  it('two processes at once store each network dispute once', async () => {
    const count = 600;
    const prefix = await seedDisputable(count);
    // A queue each, so each runs its own schedule of passes and the two runs overlap rather than take turns.
    const workers = [1, 2].map(() => settlementProcess({ QUEUE_PREFIX: queuePrefix('disp', inject('runId')) }));
    await waitFor(async () => (await openedCount(prefix)) === count, { timeoutMs: 90_000, what: 'every dispute' });
    await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGTERM')));
    await expectDisputedOnce(prefix, count);
  }, 180_000);

  it('killed with SIGKILL while storing disputes, stores each once when started again', async () => {
    const count = 1200;
    const prefix = await seedDisputable(count);
    const env = { QUEUE_PREFIX: queuePrefix('disp', inject('runId')) };
    const first = settlementProcess(env);
    await waitFor(async () => (await openedCount(prefix)) >= 100, { timeoutMs: 60_000, what: 'the first disputes' });
    await stopProcess(first, 'SIGKILL');
    const atKill = await openedCount(prefix);
    expect(atKill).toBeLessThan(count); // killed mid-run, with disputes left

    const second = settlementProcess(env);
    await waitFor(async () => (await openedCount(prefix)) === count, {
      timeoutMs: 90_000,
      what: 'the rest stored',
    });
    await stopProcess(second, 'SIGTERM');

    await expectDisputedOnce(prefix, count);
  }, 180_000);
});
