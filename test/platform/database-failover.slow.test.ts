import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenv3Body } from '../fixtures/payments';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import { expectCreatedOrUnavailable, type Outcome, startServiceProcess } from '../fixtures/service-process';
import { createReplicatedPostgres, type ReplicatedPostgres } from '../private-postgres';
import { processTracker } from '../processes';
import { waitFor } from '../wait';

/**
 * The service on a PostgreSQL primary with a synchronous standby of this test's own (docs/design.md, Past one
 * machine), `DATABASE_URL` naming both hosts with `target_session_attrs=primary`: payments under load, the primary
 * stopped with `-m immediate`, the standby promoted. Judged as a client sees it and by the promoted database: every
 * answer a 201 or a 503 with Retry-After, every payment that got a 201 in the promoted database once, the API
 * answering again within 10 s of the promotion, and settlement and deliveries going on.
 */
let pg: ReplicatedPostgres;
let receiver: Receiver;
/** The service, its account's merchant and card, and how to call it. */
let svc: Awaited<ReturnType<typeof startServiceProcess>>;
let sql: postgres.Sql;
const processes = processTracker();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  pg = await createReplicatedPostgres();
  const admin = postgres(pg.primary.url(), { max: 1, onnotice: () => {} });
  await admin`create database pps`;
  await admin.end();
  receiver = await startReceiver();
  svc = await startServiceProcess(processes, {
    databaseUrl: pg.url('pps'),
    webhookUrl: receiver.url('/hooks'),
    kind: 'pgfailover',
  });
}, 120_000);

afterAll(async () => {
  await processes.killAll();
  await receiver?.close();
  await sql?.end({ timeout: 1 });
  await pg?.destroy();
});

const payments = new Map<string, string>();
const delivered = () => new Set(receiver.at('/hooks').map((entry) => entry.headers['webhook-id']));

describe('a PostgreSQL failover under load', () => {
  it('answers 201 or 503, answers again within 10 s of the promotion, and has every 201 in the new primary once', async () => {
    const outcomes: Outcome[] = [];
    let loading = true;
    const load = Array.from({ length: 8 }, async () => {
      while (loading) {
        const requestId = randomUUID();
        payments.set(
          requestId,
          await svc.createOnce(
            tokenv3Body({ merchantId: svc.merchantId, tokenId: svc.tokenId, amount: '1500', requestId }),
            outcomes,
          ),
        );
      }
    });
    await sleep(1500);
    const before = payments.size;
    const stopped = Date.now();
    await pg.primary.stop('immediate');
    await pg.promote();
    const promoted = Date.now();
    await waitFor(() => outcomes.some((outcome) => outcome.status === 201 && outcome.at >= promoted), {
      until: (answered) => answered,
      what: 'a payment answered 201 after the promotion',
      timeoutMs: 10_000,
    });
    const answeredAgain = Math.min(
      ...outcomes.filter((outcome) => outcome.status === 201 && outcome.at >= promoted).map((o) => o.at + o.ms),
    );
    await sleep(1500);
    loading = false;
    await Promise.all(load);
    console.log(
      `failover: ${before} payments before the primary stopped, ${payments.size} in all; ` +
        `${outcomes.filter((outcome) => outcome.status === 503).length} answers 503; ` +
        `answering again ${answeredAgain - promoted} ms after the promotion (${answeredAgain - stopped} ms after the stop)`,
    );

    expect(svc.service.exitCode).toBeNull();
    expectCreatedOrUnavailable(outcomes);
    expect(answeredAgain - promoted).toBeLessThan(10_000);
    sql = postgres(pg.standby.url('pps'), { max: 2, onnotice: () => {} });
    const stored = await sql`select id from payments where merchant_id = ${svc.merchantId}`;
    // Lost 0, doubled 0: every requestId's 201 is stored once, and nothing else is.
    expect(stored.map((row) => row.id).sort()).toEqual([...new Set(payments.values())].sort());
    expect(new Set(payments.values()).size).toBe(payments.size);
    const keys = await sql`
      select k.request_id, k.payment_id from idempotency_keys k
      join payments p on p.id = k.payment_id where p.merchant_id = ${svc.merchantId}`;
    expect(new Map(keys.map((row) => [row.request_id, row.payment_id]))).toEqual(payments);
  }, 90_000);

  it('settles and delivers on the promoted primary', async () => {
    const clock = await svc.call('POST', '/sandbox/clock', {
      data: { type: 'clock', attributes: { advanceSeconds: 7 * 86_400 } },
    });
    expect(clock.status).toBe(200);
    await waitFor(
      async () =>
        (await sql`select count(*)::int as n from payments where status = 'completed'`)[0]?.n === payments.size,
      { timeoutMs: 30_000, what: 'every payment settled', retryOnError: true },
    );
    const events = await sql`select id from events where type in ('payment.created', 'payment.completed')`;
    expect(events.length).toBe(2 * payments.size);
    await waitFor(() => events.every((row) => delivered().has(row.id)), {
      timeoutMs: 30_000,
      what: 'every event delivered',
      retryOnError: true,
    });
    expect(svc.service.exitCode).toBeNull();
  }, 60_000);
});
