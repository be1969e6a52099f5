import { createDataCipher, SandboxProcessor } from '@pps/payments';
import { runSettlementPass, startSettlement } from '@pps/settlement';
import { createLogger } from '@pps/shared/logger';
import { jobs } from '@pps/shared/queues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { createCardToken, createPayment, tokenv3Body } from '../fixtures/payments';
import { createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

let stack: TestStack;
let settlement: Awaited<ReturnType<typeof startSettlement>>;

beforeAll(async () => {
  stack = await createTestStack();
  settlement = await startSettlement({ config: stack.config, db: stack.db, log: createLogger({ level: 'silent' }) });
});
afterAll(async () => {
  await settlement.close();
  await stack.close();
});

describe('settlement workers (real Redis, own BullMQ prefix)', () => {
  it('register the idempotency-cleanup, payment-recovery and request-log-retention schedulers', async () => {
    const schedulers = await waitFor(() => settlement.queues.maintenance.getJobSchedulers(), {
      until: (list) => list.length > 2,
      timeoutMs: 10_000,
      what: 'a job scheduler',
    });
    expect(schedulers.map((scheduler) => scheduler.key)).toContain(jobs.idempotencyCleanup.name);
    expect(schedulers.find((scheduler) => scheduler.key === jobs.paymentRecovery.name)?.every).toBe(60_000);
    expect(schedulers.find((scheduler) => scheduler.key === jobs.requestLogRetention.name)?.every).toBe(3_600_000);
  });

  it('a cleanup job removes keys past their TTL and keeps the fresh ones', async () => {
    const creds = await stack.createAccount();
    const old = new Date(Date.now() - 8 * 86_400_000);
    await stack.sql`
      insert into idempotency_keys (account_id, request_id, request_hash, created_at)
      values (${creds.accountId}, 'old-key', 'h', ${old.toISOString()}), (${creds.accountId}, 'fresh-key', 'h', now())`;
    const job = await settlement.queues.maintenance.add(jobs.idempotencyCleanup.name, {});
    await waitFor(() => job.isCompleted(), { timeoutMs: 15_000, what: 'the cleanup job completed' });
    expect(await job.isCompleted()).toBe(true);
    const rows = await stack.sql`select request_id from idempotency_keys where account_id = ${creds.accountId}`;
    expect(rows.map((row) => row.request_id)).toEqual(['fresh-key']);
  });
});

describe('permanent failures', () => {
  it('fails a job with an invalid payload at once, without retries', async () => {
    const job = await settlement.queues.settlement.add(jobs.clockTick.name, { accountId: 42 });
    await waitFor(() => job.isFailed(), { timeoutMs: 15_000, what: 'the job failed' });
    const failed = await settlement.queues.settlement.getJob(job.id!);
    expect(await failed!.isFailed()).toBe(true);
    expect(failed!.attemptsMade).toBe(1);
    expect(failed!.failedReason).toContain('invalid payload for clock-tick');
  });
});

describe('a job renamed (the clock tick, once `settlement-pass`)', () => {
  it('runs a job an older release queued under the former name', async () => {
    const job = await settlement.queues.settlement.add('settlement-pass', {});
    await waitFor(() => job.isCompleted(), { timeoutMs: 15_000, what: 'the settlement-pass job completed' });
    expect(await job.isCompleted()).toBe(true);
  });

  it("replaces the former name's scheduler with its own at start", async () => {
    await settlement.queues.settlement.upsertJobScheduler('settlement-pass', { every: 60_000 }, { data: {} });
    const again = await startSettlement({ config: stack.config, db: stack.db, log: createLogger({ level: 'silent' }) });
    try {
      const keys = await waitFor(
        async () => (await settlement.queues.settlement.getJobSchedulers()).map((scheduler) => scheduler.key),
        { until: (found) => !found.includes('settlement-pass'), timeoutMs: 10_000, what: 'the former scheduler gone' },
      );
      expect(keys).toContain(jobs.clockTick.name);
      expect(keys).not.toContain('settlement-pass');
    } finally {
      await again.close();
    }
  });
});

describe('the pass over every account', () => {
  it("settles what is due by each account's own clock, and nothing early", async () => {
    const payOn = async (name: string) => {
      const creds = await stack.createAccount(name);
      const [merchantId, tokenId] = await Promise.all([createMerchant(stack, creds), createCardToken(stack, creds)]);
      return { creds, id: (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data.id };
    };
    const [onTime, ahead] = await Promise.all([payOn('Real clock'), payOn('Clock ahead')]);
    // Ten days ahead, set directly so that no pass for the account is enqueued: only the pass over every
    // account can find its record due.
    await stack.sql`update accounts set clock_offset_seconds = ${10 * 86_400} where id = ${ahead.creds.accountId}`;

    const result = await runSettlementPass(
      {
        db: stack.db,
        config: stack.config,
        cipher: createDataCipher(stack.config),
        processor: new SandboxProcessor(),
        log: createLogger({ level: 'silent' }),
      },
      { now: new Date(), batchSize: 100 },
    );

    expect(result.settled).toBe(1);
    const rows = await stack.sql`
      select id, status, settled_at from payments where id in (${onTime.id}, ${ahead.id}) order by id`;
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(ahead.id)).toMatchObject({ status: 'completed' });
    expect(new Date(byId.get(ahead.id)!.settled_at).getTime()).toBeGreaterThan(Date.now() + 9 * 86_400_000);
    expect(byId.get(onTime.id)).toMatchObject({ status: 'pending', settled_at: null });
    // What the pass relies on: no account's clock is behind the real one.
    await expect(
      stack.sql`update accounts set clock_offset_seconds = -1 where id = ${onTime.creds.accountId}`,
    ).rejects.toThrow(/accounts_clock_forward/);
  });
});
