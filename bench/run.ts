import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { batchFigures, sampleBatches } from './batches';
import { benchBuild } from './bench-build';
import { cpuPerRequest, sampleCpu } from './cpu';
import { freshDatabase, vacuumAnalyze } from './fresh-database';
import { benchPostgres, perRequestStatements, postgresMonitor } from './postgres';
import { type Row, report } from './run-report';
import { benchQueuePrefix, startServer, stopAll, type Target } from './servers';
import { figuresOf, fromFirstRequest, windowedLoad } from './window';
import { prepareWorld, type World } from './world';

/**
 * `npm run bench`: the payment path against a bare baseline, in one run, loaded identically by autocannon
 * (BENCH_CONNECTIONS, default 64, and BENCH_HIGH_CONNECTIONS, default 256, for the baseline and a new payment;
 * BENCH_SECONDS, default 10, per scenario). Every server is a child process on its own database of the bench's own
 * PostgreSQL cluster (bench/postgres.ts): the bare server (bench/bare-server.ts), the platform compiled and started
 * as production starts it (`node dist/start.js`: everything in one process; then WEB_CONCURRENCY=2, a worker per
 * core), and the platform as separate gateway, payments and merchants processes. In one process it also measures
 * authorizations (`capture: false`) and then a capture of each of them (as many requests as authorizations were
 * made). The machine is shared and noisy: read the ratios to the baseline, which is measured first and last and
 * averaged, and what each request cost: the CPU milliseconds of the server's processes and of PostgreSQL (steadier
 * than requests per second when something else takes the cores), and PostgreSQL's WAL bytes, commits and statements.
 * In one process the group commits' batch sizes are read from `/metrics`. Every server is warmed up (5 s of its
 * first load, not counted), and both databases vacuumed and analyzed (`vacuumAnalyze`), before each load is
 * measured; each load is measured in a window that opens once its connections are in (`windowedLoad`), and its
 * requests per second are also counted from its first request. Results go to bench/results/<date>.json and .md.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const HIGH_CONNECTIONS = Number(process.env.BENCH_HIGH_CONNECTIONS ?? 256);
const WARM_UP_SECONDS = 5;
const ADMIN_TOKEN = 'dev-admin-token';
/** BENCH_SCENARIOS=new-payments: the baseline and a new payment only (at both numbers of connections). */
const ALL_SCENARIOS = process.env.BENCH_SCENARIOS !== 'new-payments';

const outdir = await benchBuild();
const cluster = await benchPostgres();
const platformDb = `${cluster.url}/pps_bench`;
const bareDb = `${cluster.url}/pps_bench_bare`;
const monitor = await postgresMonitor(cluster.url).catch(async (error) => {
  await cluster.stop();
  throw error;
});

const rows: Row[] = [];
try {
  await freshDatabase(platformDb);
  await freshDatabase(bareDb, { migrate: false });
  const bare = await startServer(
    ['--import', 'tsx', 'bench/bare-server.ts'],
    { DATABASE_URL: bareDb },
    { readyPath: '/payments' },
  );
  const barePayment: Load = {
    path: '/payments',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      data: { type: 'payments', attributes: { merchantId: 'mer_bare', transaction: { amount: '1999' } } },
    }),
  };
  const bareRun = (connections: number) =>
    load('POST /payments (bare baseline)', 'bare', bare, { ...barePayment, connections });
  await warmUp(bare, barePayment);
  const baselineFirst = [await bareRun(CONNECTIONS), await bareRun(HIGH_CONNECTIONS)];

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
  const newPayment = 'POST /payments tokenv3 (fresh requestId)';
  rows.push(await load(newPayment, 'in-process', single, paymentLoad(world)));
  rows.push(await load(newPayment, 'in-process', single, { ...paymentLoad(world), connections: HIGH_CONNECTIONS }));
  if (ALL_SCENARIOS) await otherScenarios(single, world);
  await stopAll(single.processes);

  if (ALL_SCENARIOS) {
    // The production start on both cores: WEB_CONCURRENCY=2 workers, each everything-in-one.
    const workers = await startServer([join(outdir, 'start.js')], { ...platformEnv, WEB_CONCURRENCY: '2' });
    await waitForWorkers(workers, 2);
    await warmUp(workers, paymentLoad(world));
    rows.push(await load(newPayment, 'in-process, 2 workers', workers, paymentLoad(world)));
    await stopAll(workers.processes);

    const multi = await startMultiProcess(platformEnv);
    await warmUp(multi, paymentLoad(world));
    rows.push(await load(newPayment, 'multi-process', multi, paymentLoad(world)));
    await stopAll(multi.processes);
  }

  const baselineLast = [await bareRun(HIGH_CONNECTIONS), await bareRun(CONNECTIONS)].reverse();
  const baselines = baselineFirst.map((first, index) => averaged(first, baselineLast[index] as Row));
  rows.unshift(...baselines);
  for (const row of rows) {
    const baseline = baselines.find((candidate) => candidate.connections === row.connections) ?? baselines[0];
    if (!baseline) continue;
    row.vsBaseline = Number((row.requestsPerSecond / baseline.requestsPerSecond).toFixed(2));
    row.vsBaselineFromFirst = Number((row.fromFirstRequestPerSecond / baseline.fromFirstRequestPerSecond).toFixed(2));
  }
  await report(rows, [...baselineFirst, ...baselineLast], {
    seconds: SECONDS,
    connections: CONNECTIONS,
    highConnections: HIGH_CONNECTIONS,
    postgres: cluster.postmaster
      ? "the bench's own cluster (fsync, synchronous commit, pg_stat_statements)"
      : cluster.url,
  });
} finally {
  await monitor.end();
  await stopAll();
  await cluster.stop();
}
process.exit(0);

/** The in-process scenarios besides a new payment: reads, tokens, replays, authorizations and their captures. */
async function otherScenarios(single: Target, world: World) {
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
}

/** The baseline, measured first and last: its requests per second averaged, its costs the first run's. */
function averaged(first: Row, last: Row): Row {
  const mean = (a: number, b: number) => Math.round((a + b) / 2);
  return {
    ...first,
    requestsPerSecond: mean(first.requestsPerSecond, last.requestsPerSecond),
    fromFirstRequestPerSecond: mean(first.fromFirstRequestPerSecond, last.fromFirstRequestPerSecond),
  };
}

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
  /** BENCH_CONNECTIONS unless given. */
  connections?: number;
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
  const { path, connections = CONNECTIONS, ...rest } = options;
  await vacuumAnalyze(bareDb, platformDb);
  const pids = [...target.processes.map((child) => child.pid as number), ...(target.pids ?? [])];
  const database = mode === 'bare' ? 'pps_bench_bare' : 'pps_bench';
  // One process answers /metrics for all of its engines; a cluster's or the gateway's would be one worker's part.
  const batches = mode === 'in-process' ? () => sampleBatches(target.base) : undefined;
  const run = windowedLoad({ url: `${target.base}${path}`, connections, ...rest }, SECONDS, async () => {
    await monitor.resetStatements();
    const before = {
      cpu: await sampleCpu(pids, cluster.postmaster),
      pg: await monitor.sample(database),
      batches: await batches?.(),
      own: process.cpuUsage(),
    };
    return async () => ({
      before,
      own: process.cpuUsage(before.own),
      cpu: await sampleCpu(pids, cluster.postmaster),
      pg: await monitor.sample(database),
      batches: await batches?.(),
      statements: await monitor.topStatements(database),
    });
  });
  const [measured, rssMb] = await Promise.all([run, peakRss(pids, run)]);
  const { before, own, cpu: cpuAfter, pg, batches: batchesAfter, statements } = measured.span;
  const requests = measured.inWindow.length;
  const cpu = cpuPerRequest(before.cpu, cpuAfter, requests);
  const perRequest = (after: number, start: number, digits: number) =>
    Number(((after - start) / requests).toFixed(digits));
  const row: Row = {
    scenario,
    mode,
    connections,
    ...figuresOf(measured),
    fromFirstRequestPerSecond: fromFirstRequest(measured),
    rssMb,
    serverCpuMs: cpu.serverMs,
    postgresCpuMs: cpu.postgresMs,
    loadGeneratorCpuMs: Number(((own.user + own.system) / 1000 / requests).toFixed(2)),
    walBytesPerRequest: Math.round(perRequest(pg.wal, before.pg.wal, 1)),
    commitsPerRequest: perRequest(pg.commits, before.pg.commits, 3),
    statementsPerRequest: perRequest(pg.statements, before.pg.statements, 2),
    nestedStatementsPerRequest: perRequest(pg.nested, before.pg.nested, 2),
    batches: before.batches && batchesAfter ? batchFigures(before.batches, batchesAfter) : undefined,
    topStatements: perRequestStatements(statements, requests),
  };
  console.log(
    `${mode.padEnd(22)} ${String(connections).padStart(3)} ${scenario.padEnd(44)} ${String(row.requestsPerSecond).padStart(7)} req/s`,
  );
  return row;
}
