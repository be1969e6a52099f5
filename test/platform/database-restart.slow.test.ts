import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refundBody, tokenv3Body } from '../fixtures/payments';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import {
  expectCreatedOrUnavailable,
  expectSettledAndDelivered,
  type Outcome,
  startServiceProcess,
} from '../fixtures/service-process';
import { createPrivatePostgres, type PrivatePostgres } from '../private-postgres';
import { processTracker } from '../processes';
import { waitFor } from '../wait';

/**
 * The service (`npm start`'s entry: API, settlement, relay and delivery in one process) against a PostgreSQL cluster
 * of this test's own, restarted under load as an operator restarts one (`pg_ctl restart -m fast`) and stopped for a
 * while. Judged as a client sees it: the process stays up, every answer is a 201 or a 503 `database_unavailable`
 * with Retry-After (never a 500, a hang or a dropped connection), a retry with the same requestId stores its
 * payment once, every 201 names a committed payment whose key holds that answer (the restarts fall in the middle of
 * group-committed batches), and every event reaches the webhook receiver. Refunds go through a restart the same way.
 */

let pg: PrivatePostgres;
let receiver: Receiver;
let service: ChildProcess;
let base: string;
let sql: postgres.Sql;
let merchantId: string;
let tokenId: string;
let call: Awaited<ReturnType<typeof startServiceProcess>>['call'];
let createOnce: Awaited<ReturnType<typeof startServiceProcess>>['createOnce'];
const processes = processTracker();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  pg = await createPrivatePostgres();
  await pg.start();
  const admin = postgres(pg.url(), { max: 1, onnotice: () => {} });
  await admin`create database pps`;
  await admin.end();
  sql = postgres(pg.url('pps'), { max: 2, onnotice: () => {} });
  receiver = await startReceiver();
  ({ service, base, call, createOnce, merchantId, tokenId } = await startServiceProcess(processes, {
    databaseUrl: pg.url('pps'),
    webhookUrl: receiver.url('/hooks'),
    kind: 'pgrestart',
    // Batches of several payments for certain, so the restarts fall in the middle of group commits.
    env: { GROUP_COMMIT_WAIT_MS: '3' },
  }));
}, 120_000);

afterAll(async () => {
  await processes.killAll();
  await receiver?.close();
  await sql?.end({ timeout: 1 });
  await pg?.destroy();
});

const payOnce = (requestId: string, outcomes: Outcome[]) =>
  createOnce(tokenv3Body({ merchantId, tokenId, amount: '1500', requestId }), outcomes);

const payments = new Map<string, string>();
/** The event ids the receiver got (`webhook-id`), retries included. */
const delivered = () => new Set(receiver.at('/hooks').map((entry) => entry.headers['webhook-id']));

describe('a PostgreSQL restart under load', () => {
  it('keeps the process up, answers 201 or 503, and stores every payment once', async () => {
    const outcomes: Outcome[] = [];
    const startedAt = await sql`select pg_postmaster_start_time() as at`;
    let loading = true;
    const load = Array.from({ length: 16 }, async () => {
      while (loading) {
        const requestId = randomUUID();
        payments.set(requestId, await payOnce(requestId, outcomes));
      }
    });
    await sleep(1500);
    await pg.restart();
    await sleep(1500);
    await pg.restart();
    await sleep(1500);
    loading = false;
    await Promise.all(load);

    expect(service.exitCode).toBeNull();
    const restartedAt = await sql`select pg_postmaster_start_time() as at`;
    expect(restartedAt[0]?.at.getTime()).toBeGreaterThan(startedAt[0]?.at.getTime());
    expectCreatedOrUnavailable(outcomes);
    expect(Math.max(...outcomes.map((outcome) => outcome.ms))).toBeLessThan(5000);

    // Each requestId: one payment, the one its 201 named; nothing else stored.
    const stored = await sql`select id from payments where merchant_id = ${merchantId}`;
    expect(stored.map((row) => row.id).sort()).toEqual([...new Set(payments.values())].sort());
    expect(new Set(payments.values()).size).toBe(payments.size);
    // Never a 201 for rows that are not there: each 201's payment is recorded, with its key answering by the
    // payment's first event (an approval's answer is not stored on the key twice).
    const keys = await sql`
      select k.request_id, k.payment_id, k.response_status, p.status, e.type from idempotency_keys k
      join payments p on p.id = k.payment_id
      left join events e on e.resource_id = k.payment_id and e.sequence = 1
      where p.merchant_id = ${merchantId}`;
    expect(new Map(keys.map((row) => [row.request_id, row.payment_id]))).toEqual(payments);
    expect(new Set(keys.map((row) => `${row.response_status} ${row.status} ${row.type}`))).toEqual(
      new Set(['null pending payment.created']),
    );
    // The restarts met batches of payments, not payments one by one.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const claimBatches = (name: string) =>
      Number(metrics.match(new RegExp(`^pps_group_commit_batch_size_${name}\\{phase="claim"\\} (\\S+)$`, 'm'))?.[1]);
    expect(claimBatches('sum') / claimBatches('count')).toBeGreaterThan(1);
  }, 90_000);

  it('delivers every event of those payments', async () => {
    const expected = await sql`select id from events where type = 'payment.created'`;
    expect(expected.length).toBe(payments.size);
    await waitFor(() => expected.every((row) => delivered().has(row.id)), {
      timeoutMs: 30_000,
      what: 'every event delivered',
      retryOnError: true,
    });
  }, 40_000);

  it('answers 503 at once while the database is down, is not ready, and serves again when it is back', async () => {
    await pg.stop();
    const started = Date.now();
    const down = await call('POST', '/payments', tokenv3Body({ merchantId, tokenId, requestId: randomUUID() }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(down.body.errors).toEqual([
      {
        status: '503',
        code: 'database_unavailable',
        title: 'Service Unavailable',
        detail: expect.stringContaining('retry'),
      },
    ]);
    expect(down.body.meta.requestId).toEqual(expect.any(String));
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).checks.database).toBe('unreachable');
    expect(service.exitCode).toBeNull();

    await pg.start();
    const back = Date.now();
    const requestId = randomUUID();
    payments.set(requestId, await payOnce(requestId, []));
    expect(Date.now() - back).toBeLessThan(5000);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  }, 60_000);

  it('settles afterwards, and every payment.completed reaches the receiver', async () => {
    await expectSettledAndDelivered({ call, sql }, payments.size, delivered);
    expect(service.exitCode).toBeNull();
  }, 60_000);

  it('refunds through a restart: each requestId makes one refund, the one its 201 named, and the ledger balances', async () => {
    const parents = [...payments.values()];
    const refunds = new Map<string, string>();
    const outcomes: Outcome[] = [];
    let loading = true;
    let next = 0;
    // Sixteen clients, two on each payment at a time: operations on one parent wait for each other's batch.
    const load = Array.from({ length: 16 }, async (_, client) => {
      while (loading) {
        const parent = parents[(Math.floor(client / 2) + 8 * next++) % parents.length] as string;
        const requestId = randomUUID();
        refunds.set(requestId, await createOnce(refundBody(parent, '10', requestId), outcomes));
      }
    });
    await sleep(1000);
    await pg.restart();
    await sleep(1000);
    loading = false;
    await Promise.all(load);

    expect(service.exitCode).toBeNull();
    expectCreatedOrUnavailable(outcomes);
    expect(outcomes.some((outcome) => outcome.status === 503)).toBe(true);
    // Each requestId: one refund, the one its 201 named, its key holding that answer; no other refund stored.
    const stored = await sql`select id from payments where payment_type = 'refund'`;
    expect(stored.map((row) => row.id).sort()).toEqual([...refunds.values()].sort());
    const keys = await sql`
      select k.request_id, k.payment_id, k.response_status from idempotency_keys k
      join payments p on p.id = k.payment_id where p.payment_type = 'refund'`;
    expect(new Map(keys.map((row) => [row.request_id, row.payment_id]))).toEqual(refunds);
    expect(new Set(keys.map((row) => row.response_status))).toEqual(new Set([201]));
    const [total] = await sql`select coalesce(sum(amount), 0)::bigint as sum from ledger_entries`;
    expect(Number(total?.sum)).toBe(0);
    const unbalanced = await sql`
      select posting_id from ledger_entries group by posting_id having sum(amount) <> 0`;
    expect(unbalanced).toEqual([]);
    // The restart met batches of refunds.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const operationBatches = (name: string) =>
      Number(
        metrics.match(new RegExp(`^pps_group_commit_batch_size_${name}\\{phase="operation"\\} (\\S+)$`, 'm'))?.[1],
      );
    expect(operationBatches('sum') / operationBatches('count')).toBeGreaterThan(1);
  }, 60_000);
});
