import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { createAccount } from '@pps/gateway';
import { systemClock } from '@pps/shared/clock';
import { loadConfig } from '@pps/shared/config';
import { FieldCipher } from '@pps/shared/crypto';
import { createDatabase, schema } from '@pps/shared/db';
import { writeEvents } from '@pps/shared/events';
import { newId } from '@pps/shared/ids';
import { createLogger } from '@pps/shared/logger';
import { startRedisCluster } from '@pps/shared/testing';
import { newWebhookSecret } from '@pps/webhooks';
import { benchBuild } from './bench-build';
import { sampleCpu } from './cpu';
import { freshDatabase, vacuumAnalyze } from './fresh-database';
import { benchQueuePrefix, NODE_FLAGS, removeBenchKeys } from './servers';

/**
 * `npm run bench:webhooks`: events written to the outbox (in transactions of 100, a backlog in one) and delivered
 * by real webhooks processes (the compiled `webhooks.js`, started as production starts it: relay + delivery workers)
 * to local receivers subscribed to everything, on a database of its own made afresh (BENCH_DATABASE_URL, default
 * pps_bench_webhooks). Seven scenarios, of five kinds:
 * - **burst, 1 process** and **burst, 2 processes**: BENCH_WEBHOOK_EVENTS (10,000) written at once, one endpoint:
 *   deliveries per second until the last is received, and the ratio of two processes to one;
 * - **backlog, 1 process** and **backlog, 2 processes**: BENCH_WEBHOOK_BACKLOG events (40,000) committed at once, in
 *   one transaction, then drained: the processes' own deliveries per second, with no event writer taking the machine
 *   beside them;
 * - **sustained**: BENCH_WEBHOOK_RATE events/s (1,000) for BENCH_WEBHOOK_SECONDS (30), one endpoint, one process;
 * - **slow neighbour**: the same rate for half as long, split between two accounts whose receivers answer at once
 *   and after 2 s: the fast endpoint's lag beside the slow one's;
 * - **redis**: a burst whose every first attempt is refused (each delivery then a BullMQ retry job), on one Redis and
 *   on a Redis Cluster of three masters and three replicas the bench starts (Debian's `redis-server`), and the ratio.
 * Every scenario's processes are warmed first: BENCH_WEBHOOK_WARMUP events (10,000) of an account of their own are
 * delivered before anything is counted, as the payment bench warms its servers (a process's first seconds go to
 * compiling its code; a deployment's processes have run for a while).
 * Each reports the commit-to-receipt lag (p50, p99; not for a backlog) and the repeats its receiver got by then
 * (requests beyond the first of each event: at-least-once allows them, so they are shown, not hidden); the burst,
 * backlog and sustained ones the CPU each delivery took in the webhooks processes, PostgreSQL and this process (the
 * event writer and receivers), and the write-ahead log written per delivery (counted from a checkpoint, so each run
 * writes the same full pages).
 * BENCH_WORKER_NODE_ARGS passes Node flags to the webhooks processes (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`);
 * BENCH_WEBHOOK_SCENARIOS runs only some, by name (comma-separated: burst1, burst2, backlog1, backlog2, sustained,
 * slow, redis; all by default), e.g. to compare two trees on one scenario back to back.
 * Numbers only: nothing here is asserted.
 */
const COUNT = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const BACKLOG = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 40_000);
const WARMUP = Number(process.env.BENCH_WEBHOOK_WARMUP ?? 10_000);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 1000);
const SUSTAINED_SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 30);
const HISTORY = Number(process.env.BENCH_WEBHOOK_HISTORY ?? 100_000);
const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/pps_bench_webhooks';

const outdir = await benchBuild();
await freshDatabase(url); // each run starts from nothing, so one run's rows never slow the next
const config = loadConfig({ ...process.env, NODE_ENV: 'test', DATABASE_URL: url });
const database = createDatabase(url, { max: 4 });
const cipher = new FieldCipher(config.DATA_ENCRYPTION_KEYS);

/** Commit times by event id, and each receiver's lags. */
const committedAt = new Map<string, number>();

type Receiver = {
  server: Server;
  url: string;
  lags: number[];
  /** Every request, a repeat of an event included (at-least-once: a repeat is allowed, and shown). */
  requests: number;
  lastReceipt: number;
  waitFor: (n: number) => Promise<void>;
};

/**
 * A receiver that answers each delivery after `delayMs`, counting the lag of the first receipt of each event; with
 * `refuseFirst`, it answers each event's first attempt 500, so every delivery is a retry: a BullMQ job.
 */
async function startReceiver(delayMs = 0, options: { refuseFirst?: boolean } = {}): Promise<Receiver> {
  const refused = new Set<string>();
  const receiver = {
    lags: [] as number[],
    requests: 0,
    lastReceipt: 0,
    waiting: [] as { n: number; resolve: () => void }[],
  };
  const server = createServer((request, response) => {
    receiver.requests += 1;
    const id = String(request.headers['webhook-id']);
    request.resume();
    request.on('end', () => {
      if (options.refuseFirst && !refused.has(id)) {
        refused.add(id);
        response.writeHead(500).end();
        return;
      }
      const now = performance.now();
      const committed = committedAt.get(id);
      if (committed !== undefined) {
        receiver.lags.push(now - committed);
        committedAt.delete(id);
        receiver.lastReceipt = now;
        receiver.waiting = receiver.waiting.filter((wait) => (receiver.lags.length >= wait.n ? wait.resolve() : true));
      }
      // At once means at once: setTimeout(…, 0) waits a millisecond at least, which capped each of an endpoint's
      // slots at under 1,000 deliveries a second.
      if (delayMs === 0) response.writeHead(204).end();
      else setTimeout(() => response.writeHead(204).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return Object.assign(receiver, {
    server,
    url: `http://127.0.0.1:${port}/hooks`,
    waitFor: (n: number) =>
      new Promise<void>((resolve) => {
        if (receiver.lags.length >= n) resolve();
        else receiver.waiting.push({ n, resolve });
      }),
  });
}

/** An account with one endpoint at `receiver`; returns the account id. */
async function subscribedAccount(receiver: Pick<Receiver, 'url'>): Promise<string> {
  const { account } = await createAccount({
    ctx: { db: database.db, clock: systemClock, log: createLogger({ level: 'warn', name: 'bench' }) },
    input: { name: `webhook bench ${randomBytes(3).toString('hex')}` },
  });
  const now = new Date();
  await database.db.insert(schema.webhookEndpoints).values({
    id: newId('webhook'),
    accountId: account.id,
    url: receiver.url,
    events: ['*'],
    secretEnc: cipher.encrypt(newWebhookSecret()),
    createdAt: now,
    updatedAt: now,
  });
  return account.id;
}

/**
 * HISTORY events delivered before the run (a day ago, each with its delivery and one attempt, to an endpoint of an
 * account of their own), as a platform in use has: the tables the scenarios write are then not empty. On empty
 * tables the planner's choices are those of a database just made, not of one in use: a statement prepared while
 * the deliveries were a few pages keeps a plan that reads them all (its generic plan, which an ANALYZE would replace;
 * autovacuum does, within a minute, on a database in use, and this machine's cluster runs without it).
 */
async function seedHistory(): Promise<void> {
  if (HISTORY === 0) return;
  const endpointAccount = await subscribedAccount({ url: 'http://127.0.0.1:9/history' });
  const [endpoint] = await database.sql<{ id: string }[]>`
    select id from webhook_endpoints where account_id = ${endpointAccount}`;
  if (!endpoint) throw new Error('the history endpoint was not made');
  const payload = JSON.stringify({ type: 'payment.completed', data: { type: 'payments', attributes: {} } });
  const dayAgo = Date.now() - 86_400_000;
  for (let offset = 0; offset < HISTORY; offset += 10_000) {
    const size = Math.min(10_000, HISTORY - offset);
    const at = Array.from({ length: size }, (_, index) => dayAgo + offset + index);
    const eventIds = at.map((time) => newId('event', time));
    const deliveryIds = at.map((time) => newId('delivery', time));
    const createdAt = at.map((time) => new Date(time).toISOString());
    await database.sql.begin(async (tx) => {
      await tx`insert into events (id, account_id, type, resource_type, resource_id, sequence, payload, created_at)
        select id, ${endpointAccount}, 'payment.completed', 'payments', 'pay_' || id, 1, ${payload}::jsonb, at::timestamptz
        from unnest(${eventIds}::text[], ${createdAt}::text[]) as e(id, at)`;
      await tx`insert into webhook_deliveries (id, account_id, endpoint_id, event_id, status, attempts, last_status_code,
          completed_at, created_at, updated_at)
        select id, ${endpointAccount}, ${endpoint.id}, event_id, 'succeeded', 1, 204, at::timestamptz,
          at::timestamptz, at::timestamptz
        from unnest(${deliveryIds}::text[], ${eventIds}::text[], ${createdAt}::text[]) as d(id, event_id, at)`;
      await tx`insert into webhook_attempts (delivery_id, attempt, status_code, latency_ms, created_at)
        select id, 1, 204, 3, at::timestamptz from unnest(${deliveryIds}::text[], ${createdAt}::text[]) as a(id, at)`;
    });
  }
}

/** `count` webhooks processes on one queue prefix, just spawned, with `env` beside the bench's. */
function spawnWorkers(count: number, env: Record<string, string> = {}): ChildProcess[] {
  const args = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const prefix = benchQueuePrefix('bench');
  return Array.from({ length: count }, () =>
    spawn(process.execPath, [...NODE_FLAGS, ...args, join(outdir, 'webhooks.js')], {
      // METRICS_PORT 0: several processes on one host would clash on one (a taken port stops the process).
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'error',
        DATABASE_URL: url,
        QUEUE_PREFIX: prefix,
        METRICS_PORT: '0',
        ...env,
      },
      stdio: 'inherit',
    }),
  );
}

/**
 * `count` webhooks processes on one queue prefix, each listening once its relay is up, and warm: WARMUP events of an
 * account of their own delivered to a receiver of their own. Cold, one process drained a backlog of 10,000 at 0.17 to
 * 0.19 ms of CPU per delivery, and one of 40,000, where its first seconds weigh less, at 0.12 (docs/decisions.md).
 */
async function startWorkers(count: number, env: Record<string, string> = {}): Promise<ChildProcess[]> {
  const workers = spawnWorkers(count, env);
  await new Promise((resolve) => setTimeout(resolve, 5000)); // the relays start listening
  if (WARMUP > 0) {
    const receiver = await startReceiver();
    await writeAll(await subscribedAccount(receiver), WARMUP);
    await receiver.waitFor(WARMUP);
    receiver.server.close();
  }
  return workers;
}

const stopWorkers = (workers: ChildProcess[]) =>
  Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve).kill('SIGTERM'))));

let serial = 0;
/** `size` events of `accountId`, each of a payment of its own. */
const eventsOf = (accountId: string, size: number) =>
  Array.from({ length: size }, () => ({
    accountId,
    type: 'payment.completed' as const,
    resource: {
      type: 'payments',
      id: `pay_bench${serial++}`,
      attributes: { status: 'completed', transaction: { amount: '1000', currency: 'USD' } },
    },
    previousStatus: 'pending',
  }));

/** Writes `size` events of `accountId` in one transaction (statements of up to 5,000) and notes their commit time. */
async function writeBatch(accountId: string, size: number): Promise<void> {
  const written = await database.db.transaction(async (tx) => {
    const all: { id: string }[] = [];
    for (let offset = 0; offset < size; offset += 5000) {
      all.push(...(await writeEvents(tx, eventsOf(accountId, Math.min(5000, size - offset)))));
    }
    return all;
  });
  const at = performance.now();
  for (const event of written) committedAt.set(event.id, at);
}

/** `count` events of `accountId`, in transactions of 100 one after another. */
async function writeAll(accountId: string, count = COUNT): Promise<void> {
  for (let offset = 0; offset < count; offset += 100) await writeBatch(accountId, Math.min(100, count - offset));
}

/** `perSecond` events a second for `seconds`, in ticks of 100 ms, spread round-robin over the accounts. */
async function writeAtRate(accountIds: string[], perSecond: number, seconds: number): Promise<number> {
  const perTick = perSecond / 10;
  const started = performance.now();
  let written = 0;
  for (let tick = 0; tick < seconds * 10; tick++) {
    const due = Math.round((tick + 1) * perTick) - written;
    await Promise.all(accountIds.map((accountId) => writeBatch(accountId, Math.round(due / accountIds.length))));
    written += Math.round(due / accountIds.length) * accountIds.length;
    const wait = started + (tick + 1) * 100 - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return written;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN);
};

/**
 * CPU ms per delivery: the webhooks processes, PostgreSQL, and this process (the event writer and receivers); and
 * the bytes of write-ahead log PostgreSQL wrote per delivery (the event's rows included), which, unlike CPU, the
 * machine's other tenants do not move: rows and index entries written show in it.
 */
type CpuPerDelivery = { webhooks: number; postgres: number; bench: number; walBytes: number };
type Row = {
  scenario: string;
  deliveries: number;
  perSecond: number;
  /** The commit-to-receipt lag; none for a backlog, whose events waited for the processes to start. */
  p50: number | null;
  p99: number | null;
  /** Requests beyond the first of each event, by the time the row was taken. */
  repeats: number;
  cpu?: CpuPerDelivery;
};
const rows: Row[] = [];
/** A scenario's row: its deliveries, their rate, the lags `receiver` measured and the CPU they took. */
const rowOf = (
  scenario: string,
  deliveries: number,
  perSecond: number,
  receiver: Receiver,
  cpu?: CpuPerDelivery,
  lag = true,
): Row => ({
  scenario,
  deliveries,
  perSecond,
  p50: lag ? percentile(receiver.lags, 50) : null,
  p99: lag ? percentile(receiver.lags, 99) : null,
  repeats: receiver.requests - receiver.lags.length,
  cpu,
});

/**
 * The cores a row's deliveries kept busy (CPU per delivery times deliveries per second): the webhooks processes', and
 * everything measured. A process's main thread cannot pass 1 (its collector and compiler threads add a little), and
 * the machine has 2.
 */
function coresBusy(row: Row): string {
  if (!row.cpu) return '—';
  const cores = (ms: number) => ((ms * row.perSecond) / 1000).toFixed(2);
  return `${cores(row.cpu.webhooks)} · ${cores(row.cpu.webhooks + row.cpu.postgres + row.cpu.bench)}`;
}

/** Where PostgreSQL's write-ahead log has been written up to, in bytes. */
const walPosition = async () =>
  Number((await database.sql`select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text as bytes`)[0]?.bytes);

/** Starts counting CPU; the returned function gives the CPU per delivery since, for `deliveries`. */
async function cpuMeter(workers: ChildProcess[]) {
  const pids = workers.map((worker) => worker.pid as number);
  await database.sql`checkpoint`;
  const [before, ownBefore, walBefore] = [await sampleCpu(pids), process.cpuUsage(), await walPosition()];
  return async (deliveries: number): Promise<CpuPerDelivery> => {
    const [after, own, walAfter] = [await sampleCpu(pids), process.cpuUsage(ownBefore), await walPosition()];
    const per = (seconds: number) => Number(((seconds * 1000) / deliveries).toFixed(3));
    return {
      webhooks: per(after.server - before.server),
      postgres: per(after.postgres - before.postgres),
      bench: per((own.user + own.system) / 1e6),
      walBytes: Math.round((walAfter - walBefore) / deliveries),
    };
  };
}

async function burst(processes: number): Promise<void> {
  const receiver = await startReceiver();
  const accountId = await subscribedAccount(receiver);
  const workers = await startWorkers(processes);
  await vacuumAnalyze(url);
  const cpu = await cpuMeter(workers);
  const started = performance.now();
  await writeAll(accountId);
  await receiver.waitFor(COUNT);
  const seconds = (receiver.lastReceipt - started) / 1000;
  const used = await cpu(COUNT);
  rows.push(
    rowOf(
      `burst of ${COUNT.toLocaleString('en-US')}, ${processes} process${processes > 1 ? 'es' : ''}`,
      COUNT,
      Math.round(COUNT / seconds),
      receiver,
      used,
    ),
  );
  await stopWorkers(workers);
  receiver.server.close();
}

/**
 * A backlog: BACKLOG events committed at once, in one transaction (what an outage of the pipeline leaves, or a
 * settlement run's completions), then drained by `processes` warm ones. Deliveries per second and CPU are counted
 * from the first receipt to the last, so they are the processes' own, with no event writer beside them.
 */
async function backlog(processes: number): Promise<void> {
  const receiver = await startReceiver();
  const accountId = await subscribedAccount(receiver);
  const workers = await startWorkers(processes);
  await vacuumAnalyze(url);
  await writeBatch(accountId, BACKLOG);
  await receiver.waitFor(1);
  const cpu = await cpuMeter(workers);
  const [from, started] = [receiver.lags.length, performance.now()];
  await receiver.waitFor(BACKLOG);
  const used = await cpu(BACKLOG - from);
  rows.push(
    rowOf(
      `backlog of ${BACKLOG.toLocaleString('en-US')}, ${processes} process${processes > 1 ? 'es' : ''}`,
      BACKLOG - from,
      Math.round((BACKLOG - from) / ((receiver.lastReceipt - started) / 1000)),
      receiver,
      used,
      false,
    ),
  );
  await stopWorkers(workers);
  receiver.server.close();
}

async function sustained(): Promise<void> {
  const receiver = await startReceiver();
  const accountId = await subscribedAccount(receiver);
  const workers = await startWorkers(1);
  await vacuumAnalyze(url);
  const cpu = await cpuMeter(workers);
  const written = await writeAtRate([accountId], RATE, SUSTAINED_SECONDS);
  await receiver.waitFor(written);
  const used = await cpu(written);
  rows.push(
    rowOf(
      `sustained ${RATE.toLocaleString('en-US')}/s for ${SUSTAINED_SECONDS} s, 1 process`,
      written,
      Math.round(written / SUSTAINED_SECONDS),
      receiver,
      used,
    ),
  );
  await stopWorkers(workers);
  receiver.server.close();
}

async function slowNeighbour(): Promise<void> {
  const [fast, slow] = await Promise.all([startReceiver(), startReceiver(2000)]);
  const accounts = [await subscribedAccount(fast), await subscribedAccount(slow)];
  const workers = await startWorkers(1);
  await vacuumAnalyze(url);
  const seconds = Math.max(1, Math.round(SUSTAINED_SECONDS / 2));
  const written = await writeAtRate(accounts, RATE, seconds);
  await fast.waitFor(written / 2);
  rows.push(
    rowOf(
      `sustained ${RATE.toLocaleString('en-US')}/s for ${seconds} s, half to a receiver answering in 2 s: the other half's lag`,
      written / 2,
      Math.round(written / 2 / seconds),
      fast,
    ),
  );
  // The slow endpoint's deliveries go on at its endpoint's pace; what it received by now, for the record.
  rows.push(
    rowOf(
      '… the receiver answering in 2 s, what it received meanwhile',
      slow.lags.length,
      Math.round(slow.lags.length / seconds),
      slow,
    ),
  );
  await stopWorkers(workers);
  fast.server.close();
  slow.server.close();
}

/**
 * A burst whose every first attempt the receiver refuses, so every delivery is a BullMQ retry job (a second after):
 * the pipeline's Redis traffic, on one Redis or on a Redis Cluster of three masters and three replicas of the bench's
 * own (`redis`: `{ nodes }`), one process. Deliveries per second count from the first write to the last receipt.
 */
async function retried(redis: 'one Redis' | { nodes: string }): Promise<void> {
  const env = {
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1,1,1',
    ...(redis === 'one Redis' ? {} : { REDIS_CLUSTER_NODES: redis.nodes }),
  };
  const warm = await startWorkers(1, env);
  const receiver = await startReceiver(0, { refuseFirst: true });
  const accountId = await subscribedAccount(receiver);
  await vacuumAnalyze(url);
  const cpu = await cpuMeter(warm);
  const started = performance.now();
  await writeAll(accountId);
  await receiver.waitFor(COUNT);
  const seconds = (receiver.lastReceipt - started) / 1000;
  const where = redis === 'one Redis' ? 'one Redis' : 'a Redis Cluster (3 masters, 3 replicas)';
  rows.push(
    rowOf(
      `burst of ${COUNT.toLocaleString('en-US')}, every first attempt refused (a BullMQ job each), 1 process, ${where}`,
      COUNT,
      Math.round(COUNT / seconds),
      receiver,
      await cpu(COUNT),
    ),
  );
  await stopWorkers(warm);
  receiver.server.close();
}

/** `retried` on one Redis, then on a Redis Cluster, in one run. */
async function redisAndCluster(): Promise<void> {
  await retried('one Redis');
  const cluster = await startRedisCluster();
  try {
    await retried({ nodes: cluster.nodes });
  } finally {
    await cluster.stop();
  }
}

const scenarios: Record<string, () => Promise<void>> = {
  burst1: () => burst(1),
  burst2: () => burst(2),
  backlog1: () => backlog(1),
  backlog2: () => backlog(2),
  sustained,
  slow: slowNeighbour,
  redis: redisAndCluster,
};
const chosen = (process.env.BENCH_WEBHOOK_SCENARIOS ?? Object.keys(scenarios).join(','))
  .split(',')
  .map((name) => name.trim());
const unknown = chosen.filter((name) => !(name in scenarios));
if (unknown.length > 0) {
  throw new Error(`BENCH_WEBHOOK_SCENARIOS: no scenario ${unknown.join(', ')} (${Object.keys(scenarios).join(', ')})`);
}
await seedHistory();
for (const name of chosen) await scenarios[name]?.();

/** The row of a burst or a backlog with `processes` processes, when it ran. */
const rowFor = (kind: 'burst' | 'backlog', processes: number) =>
  rows.find(
    (row) =>
      row.scenario.startsWith(`${kind} of`) &&
      row.scenario.endsWith(`, ${processes} process${processes > 1 ? 'es' : ''}`),
  );
console.log('\nwebhooks processes on loopback, receivers in this process\n');
console.log(
  '| scenario | deliveries | deliveries/s | lag p50 ms | lag p99 ms | repeats | CPU ms per delivery: webhooks · PostgreSQL · this process | cores busy: webhooks · all | WAL bytes per delivery |',
);
console.log('|---|---:|---:|---:|---:|---:|---|---|---:|');
for (const row of rows) {
  const cpu = row.cpu ? `${row.cpu.webhooks} · ${row.cpu.postgres} · ${row.cpu.bench}` : '—';
  console.log(
    `| ${row.scenario} | ${row.deliveries.toLocaleString('en-US')} | ${row.perSecond.toLocaleString('en-US')} | ${row.p50 ?? '—'} | ${row.p99 ?? '—'} | ${row.repeats} | ${cpu} | ${coresBusy(row)} | ${row.cpu?.walBytes.toLocaleString('en-US') ?? '—'} |`,
  );
}
const ratio = (kind: 'burst' | 'backlog') => {
  const [one, two] = [rowFor(kind, 1), rowFor(kind, 2)];
  return one && two ? `${(two.perSecond / one.perSecond).toFixed(2)}×` : '—';
};
console.log(`\nTwo processes / one: ${ratio('burst')} in the burst, ${ratio('backlog')} draining a backlog`);
const [oneRedis, cluster] = ['one Redis', 'a Redis Cluster'].map((where) =>
  rows.find((row) => row.scenario.startsWith('burst') && row.scenario.includes(where)),
);
if (oneRedis && cluster) {
  console.log(
    `Redis Cluster / one Redis: ${(cluster.perSecond / oneRedis.perSecond).toFixed(2)}× (retried deliveries)`,
  );
}
await database.close();
await removeBenchKeys();
process.exit(0);
