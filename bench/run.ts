import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { build } from '../scripts/build';
import { cpuPerRequest, sampleCpu } from './cpu';
import { freshDatabase, vacuumAnalyze } from './fresh-database';
import { benchQueuePrefix, startServer, stopAll, type Target } from './servers';
import { figuresOf, SETTLE_SECONDS, windowedLoad } from './window';
import { prepareWorld, type World } from './world';

/**
 * `npm run bench`: the payment path against a bare baseline, in one run, loaded identically by autocannon
 * (BENCH_CONNECTIONS, default 64, for BENCH_SECONDS, default 10, per scenario). Every server is a child process
 * on its own database: the bare server (bench/bare-server.ts), the platform compiled and started as production
 * starts it (`node dist/start.js`: everything in one process; then WEB_CONCURRENCY=2, a worker per core), and the
 * platform as separate gateway, payments and merchants processes. In one process it also measures authorizations
 * (`capture: false`) and then a capture of each of them (as many requests as authorizations were made). The machine
 * is shared and noisy: read the ratios to
 * the baseline, which is measured first and last and averaged, and the CPU milliseconds each request cost the server's
 * processes and PostgreSQL (steadier than requests per second when something else takes the cores), with the WAL
 * bytes and the commits each request cost PostgreSQL (`pg_current_wal_lsn`, `pg_stat_database`). Every server is
 * warmed up (5 s of its first load, not counted), and both databases vacuumed and analyzed (`vacuumAnalyze`), before
 * each load is measured; each load is measured in a window that opens once its connections are in (`windowedLoad`).
 * Results go to bench/results/<date>.json and .md.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const WARM_UP_SECONDS = 5;
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const ADMIN_TOKEN = 'dev-admin-token';

type Row = {
  scenario: string;
  mode: 'bare' | 'in-process' | 'in-process, 2 workers' | 'multi-process';
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  rssMb: number;
  /** CPU milliseconds per request: the server's processes, PostgreSQL's, and the load generator's (this process). */
  serverCpuMs: number;
  postgresCpuMs: number;
  loadGeneratorCpuMs: number;
  /** What each request cost PostgreSQL besides CPU: WAL bytes written (the cluster's), and commits (its database's). */
  walBytesPerRequest: number;
  commitsPerRequest: number;
  vsBaseline?: number;
};

const outdir = join('.tmp', `bench-dist-${randomBytes(3).toString('hex')}`);
await build(outdir);
const platformDb = `${POSTGRES}/pps_bench`;
const bareDb = `${POSTGRES}/pps_bench_bare`;
await freshDatabase(platformDb);
await freshDatabase(bareDb, { migrate: false });

/** Reads the cluster's WAL position and a database's commits, beside the loads (one connection of its own). */
const monitor = postgres(`${POSTGRES}/postgres`, { max: 1, onnotice: () => {} });

/**
 * The WAL written so far (bytes, the whole cluster's: one server is loaded at a time, and autovacuum is off here or
 * quiet) and `database`'s commits (`pg_stat_database.xact_commit`). Each backend reports its commits at most a
 * second late; under a steady load the lag is the same at both ends of a window, so a difference is right.
 */
async function walAndCommits(database: string): Promise<{ wal: number; commits: number }> {
  const [row] = await monitor<{ wal: string; commits: string }[]>`
    select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as wal,
      (select xact_commit from pg_stat_database where datname = ${database})::text as commits`;
  return { wal: Number(row?.wal), commits: Number(row?.commits) };
}

const rows: Row[] = [];
try {
  const bare = await startServer(
    ['--import', 'tsx', 'bench/bare-server.ts'],
    { DATABASE_URL: bareDb },
    { readyPath: '/payments' },
  );
  const barePayment = JSON.stringify({
    data: { type: 'payments', attributes: { merchantId: 'mer_bare', transaction: { amount: '1999' } } },
  });
  const bareRun = () =>
    load('POST /payments (bare baseline)', 'bare', bare, {
      path: '/payments',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: barePayment,
    });
  await warmUp(bare, {
    path: '/payments',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: barePayment,
  });
  const baselineFirst = await bareRun();

  const platformEnv = {
    DATABASE_URL: platformDb,
    QUEUE_PREFIX: benchQueuePrefix('bench'),
    RATE_LIMIT_RPS: '0',
    AUTH_FAILURE_LIMIT: '0',
    // The baseline's pool, so both wait on the same number of connections.
    DATABASE_POOL_SIZE: '20',
  };
  const single = await startServer([join(outdir, 'start.js')], platformEnv);
  const world = await prepareWorld(single.base, ADMIN_TOKEN);
  await warmUp(single, paymentLoad(world));
  rows.push(await load('POST /payments tokenv3 (fresh requestId)', 'in-process', single, paymentLoad(world)));
  rows.push(
    await load('GET /payments/{id}', 'in-process', single, {
      path: `/payments/${world.paymentId}`,
      method: 'GET',
      headers: world.credentials.headers,
    }),
  );
  rows.push(
    await load('POST /auth/token', 'in-process', single, {
      path: '/auth/token',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': world.credentials.apiKey },
      body: JSON.stringify({ data: { type: 'auth', attributes: { appKey: world.credentials.appKey } } }),
    }),
  );
  rows.push(
    await load('POST /payments (idempotent replay)', 'in-process', single, {
      path: '/payments',
      method: 'POST',
      headers: { ...world.credentials.headers, 'content-type': 'application/json' },
      body: world.replayedBody,
    }),
  );
  // Authorize now, capture later: authorizations under the payment load, then each of them captured once.
  const authorizations: string[] = [];
  rows.push(
    await load('POST /payments tokenv3 capture:false (authorize)', 'in-process', single, {
      ...paymentLoad(world),
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => ({ ...request, body: world.authorizationBody(randomUUID()) }),
          onResponse: (status, body) => {
            if (status === 201) authorizations.push((JSON.parse(body) as { data: { id: string } }).data.id);
          },
        },
      ],
    }),
  );
  rows.push(
    await load('POST /payments capture (each authorization once)', 'in-process', single, {
      ...paymentLoad(world),
      // As many requests as there are authorizations (not a duration): each is captured once.
      amount: authorizations.length,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({
              data: {
                type: 'payments',
                requestId: randomUUID(),
                attributes: { paymentType: 'capture', parentPaymentId: authorizations.pop() },
              },
            }),
          }),
        },
      ],
    }),
  );
  await stopAll(single.processes);

  // The production start on both cores: WEB_CONCURRENCY=2 workers, each everything-in-one.
  const workers = await startServer([join(outdir, 'start.js')], { ...platformEnv, WEB_CONCURRENCY: '2' });
  await waitForWorkers(workers, 2);
  await warmUp(workers, paymentLoad(world));
  rows.push(
    await load('POST /payments tokenv3 (fresh requestId)', 'in-process, 2 workers', workers, paymentLoad(world)),
  );
  await stopAll(workers.processes);

  const multi = await startMultiProcess(platformEnv);
  await warmUp(multi, paymentLoad(world));
  rows.push(await load('POST /payments tokenv3 (fresh requestId)', 'multi-process', multi, paymentLoad(world)));
  await stopAll(multi.processes);

  const baselineLast = await bareRun();
  const baseline = (baselineFirst.requestsPerSecond + baselineLast.requestsPerSecond) / 2;
  rows.unshift({ ...baselineFirst, requestsPerSecond: Math.round(baseline) });
  for (const row of rows) row.vsBaseline = Number((row.requestsPerSecond / baseline).toFixed(2));
  await report(rows, { baselineFirst: baselineFirst.requestsPerSecond, baselineLast: baselineLast.requestsPerSecond });
} finally {
  await monitor.end({ timeout: 1 });
  await stopAll();
}
process.exit(0);

// ——— servers ———

async function startMultiProcess(env: Record<string, string>): Promise<Target> {
  const payments = await startServer([join(outdir, 'payments.js')], env, { portVariable: 'PAYMENTS_PORT' });
  const merchants = await startServer([join(outdir, 'merchants.js')], env, { portVariable: 'MERCHANTS_PORT' });
  const gateway = await startServer([join(outdir, 'gateway.js')], {
    ...env,
    PAYMENTS_URL: payments.base,
    MERCHANTS_URL: merchants.base,
  });
  return { base: gateway.base, processes: [...gateway.processes, ...payments.processes, ...merchants.processes] };
}

/** A cluster's workers, as processes whose memory is sampled (the primary's children). */
async function waitForWorkers(target: Target, count: number, deadline = Date.now() + 30_000) {
  const primary = target.processes[0] as ChildProcess;
  for (;;) {
    const children = (await readFile(`/proc/${primary.pid}/task/${primary.pid}/children`, 'utf8')).trim().split(/\s+/);
    const pids = children.filter(Boolean).map(Number);
    if (pids.length >= count) {
      target.pids = pids;
      return;
    }
    if (Date.now() > deadline) throw new Error('workers did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// ——— load ———

type Load = {
  path: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  requests?: autocannon.Request[];
  /** A number of requests in place of the duration. */
  amount?: number;
};

function paymentLoad(world: World): Load {
  return {
    path: '/payments',
    method: 'POST',
    headers: { ...world.credentials.headers, 'content-type': 'application/json' },
    requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, body: world.paymentBody(randomUUID()) }) }],
  };
}

/** Peak resident memory of the processes while `during` runs, in MB (the largest process). */
async function peakRss(pids: number[], during: Promise<unknown>): Promise<number> {
  let peak = 0;
  const sample = async () => {
    for (const pid of pids) {
      const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peak = Math.max(peak, kb / 1024);
    }
  };
  const timer = setInterval(() => void sample(), 250);
  await during;
  clearInterval(timer);
  await sample();
  return Math.round(peak);
}

/** A load that is not counted: the server's JIT and pools reach their steady state first (as in production). */
async function warmUp(target: Target, options: Load) {
  const { path, ...rest } = options;
  await autocannon({ url: `${target.base}${path}`, connections: CONNECTIONS, duration: WARM_UP_SECONDS, ...rest });
}

async function load(scenario: string, mode: Row['mode'], target: Target, options: Load): Promise<Row> {
  const { path, ...rest } = options;
  await vacuumAnalyze(bareDb, platformDb);
  const pids = [...target.processes.map((child) => child.pid as number), ...(target.pids ?? [])];
  const database = mode === 'bare' ? 'pps_bench_bare' : 'pps_bench';
  const run = windowedLoad({ url: `${target.base}${path}`, connections: CONNECTIONS, ...rest }, SECONDS, async () => {
    const [before, pgBefore] = [await sampleCpu(pids), await walAndCommits(database)];
    const ownBefore = process.cpuUsage();
    return async () => ({
      before,
      own: process.cpuUsage(ownBefore),
      after: await sampleCpu(pids),
      pg: { before: pgBefore, after: await walAndCommits(database) },
    });
  });
  const [measured, rssMb] = await Promise.all([run, peakRss(pids, run)]);
  const { before, own, after, pg } = measured.span;
  const requests = measured.inWindow.length;
  const cpu = cpuPerRequest(before, after, requests);
  const row: Row = {
    scenario,
    mode,
    ...figuresOf(measured),
    rssMb,
    serverCpuMs: cpu.serverMs,
    postgresCpuMs: cpu.postgresMs,
    loadGeneratorCpuMs: Number(((own.user + own.system) / 1000 / requests).toFixed(2)),
    walBytesPerRequest: Math.round((pg.after.wal - pg.before.wal) / requests),
    commitsPerRequest: Number(((pg.after.commits - pg.before.commits) / requests).toFixed(3)),
  };
  console.log(`${mode.padEnd(22)} ${scenario.padEnd(44)} ${String(row.requestsPerSecond).padStart(7)} req/s`);
  return row;
}

// ——— report ———

/**
 * On a machine whose cores the servers, PostgreSQL and the load generator share, requests per second go as the
 * inverse of the CPU a request costs them all. So the ratio a scenario could reach if the platform's own processes
 * cost what the bare server's do is the bare CPU per request over (the bare server's + this scenario's PostgreSQL
 * and load generator CPU): the part of the gap that the database work alone leaves.
 */
function ceilingNote(rows: Row[]): string {
  const bare = rows.find((row) => row.mode === 'bare');
  const payment = rows.find((row) => row.mode === 'in-process' && row.scenario.startsWith('POST /payments tokenv3'));
  if (!bare || !payment) return '';
  const cost = (row: Row, server: number) => server + row.postgresCpuMs + row.loadGeneratorCpuMs;
  const ceiling = cost(bare, bare.serverCpuMs) / cost(payment, bare.serverCpuMs);
  return (
    `Database-bound ceiling: with its own processes as cheap as the bare server (${bare.serverCpuMs} ms per ` +
    `request), tokenv3 in-process would reach at most ${ceiling.toFixed(2)} of the baseline; its PostgreSQL CPU ` +
    `(${payment.postgresCpuMs} ms per payment against ${bare.postgresCpuMs}) alone keeps it there.`
  );
}

/**
 * The cores a scenario kept busy: its server's processes, and everything measured (server, PostgreSQL, load
 * generator), from the CPU per request times the requests per second. A Node process's main thread cannot pass 1
 * (its collector and compiler threads add a little); when the bare row and a platform row keep the machine about as
 * busy, their ratio is their CPU per request's.
 */
function coresBusy(row: Row): string {
  const cores = (ms: number) => ((ms * row.requestsPerSecond) / 1000).toFixed(2);
  return `${cores(row.serverCpuMs)} · ${cores(row.serverCpuMs + row.postgresCpuMs + row.loadGeneratorCpuMs)}`;
}

async function report(rows: Row[], baselines: { baselineFirst: number; baselineLast: number }) {
  const header =
    `${SECONDS} s per scenario, from ${SETTLE_SECONDS} s after its load began (its connections in), ` +
    `${CONNECTIONS} connections, loopback, load generator on the same machine`;
  const table = [
    '| mode | scenario | req/s | p50 ms | p99 ms | errors | peak RSS MB | server CPU ms/req | PostgreSQL CPU ms/req | load generator CPU ms/req | WAL bytes/req | commits/req | cores busy: server · all | vs baseline |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.mode} | ${row.scenario} | ${row.requestsPerSecond} | ${row.p50Ms} | ${row.p99Ms} | ${row.errors} | ` +
        `${row.rssMb} | ${row.serverCpuMs} | ${row.postgresCpuMs} | ${row.loadGeneratorCpuMs} | ` +
        `${row.walBytesPerRequest.toLocaleString('en-US')} | ${row.commitsPerRequest} | ${coresBusy(row)} | ` +
        `${row.vsBaseline?.toFixed(2)} |`,
    ),
  ].join('\n');
  const note = [
    `Baseline: mean of ${baselines.baselineFirst} req/s (first) and ${baselines.baselineLast} req/s (last).`,
    ceilingNote(rows),
  ].join('\n\n');
  console.log(`\n${header}\n\n${table}\n\n${note}\n`);
  const stamp = new Date().toISOString().slice(0, 16).replace(':', '-');
  await mkdir('bench/results', { recursive: true });
  const json = {
    date: new Date().toISOString(),
    seconds: SECONDS,
    settleSeconds: SETTLE_SECONDS,
    connections: CONNECTIONS,
    ...baselines,
    rows,
  };
  await writeFile(join('bench/results', `${stamp}.json`), `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(
    join('bench/results', `${stamp}.md`),
    `# npm run bench, ${stamp}\n\n${header}\n\n${table}\n\n${note}\n`,
  );
  console.log(`written to bench/results/${stamp}.json and .md`);
}
