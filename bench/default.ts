import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPrivatePostgres, freePort } from '@pps/shared/testing';
import autocannon from 'autocannon';
import { benchBuild } from './bench-build';
import { childrenOf, sampleCpu } from './cpu';
import { freshDatabase } from './fresh-database';
import { resultStamp } from './results-stamp';
import { benchQueuePrefix, startServer, stopAll, type Target } from './servers';
import { percentile, windowedLoad } from './window';
import { prepareWorld, type World } from './world';

/**
 * `npm run bench:default`: the platform as a user first runs it, beside the bare server, in one run (issue 57):
 * `npm start`'s build and process (NODE_ENV development, every role in one process, WEB_CONCURRENCY unset, the
 * demo shop on), on the machine's own PostgreSQL (BENCH_POSTGRES_URL, default 127.0.0.1:5432) with a fresh
 * database; and a bare Hono + postgres.js server inserting a payment into the same PostgreSQL. Each is loaded by
 * autocannon in this process (not the servers'), BENCH_CONNECTIONS (64) connections for BENCH_SECONDS (15), tokenv3
 * with a new requestId per request, counted from the first request. Printed and written to
 * bench/results/default-<date>.md: each server's 2xx per second, p50, p99, non-2xx answers by status and errors,
 * the cores each process kept
 * busy (its CPU seconds over the load's seconds) and PostgreSQL's, and the platform's ratio to the bare server.
 * BENCH_RUNS (1) runs one after the other, the bare server first in each. To measure one difference at a time:
 * BENCH_DEFAULT_ENV (`NAME=value,…`) changes the platform's environment, BENCH_DEFAULT_POSTGRES the database (below),
 * BENCH_WARMUP_SECONDS loads each server that long before the counted load.
 */
/**
 * BENCH_DEFAULT_POSTGRES, one difference at a time: `machine` (the default: BENCH_POSTGRES_URL, else the one on 5432),
 * `private` (a cluster of the bench's own, as `npm run bench` makes it, autovacuum off as on the machine's) or
 * `private-autovacuum` (the same with autovacuum on, PostgreSQL's default).
 */
const WHERE = process.env.BENCH_DEFAULT_POSTGRES ?? 'machine';
const cluster =
  WHERE === 'machine'
    ? undefined
    : await createPrivatePostgres([
        'max_connections=300',
        'shared_buffers=128MB',
        `autovacuum=${WHERE === 'private-autovacuum' ? 'on' : 'off'}`,
      ]);
await cluster?.start();
const POSTGRES = cluster
  ? cluster.url('').replace(/\/$/, '')
  : (process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
/** Seconds of the same load before the counted one (not counted): 0 counts from the first request, as a user does. */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 0);
/** One difference at a time: `NAME=value,…` given to the platform's process last (`NODE_ENV=production`, …). */
const PLATFORM_ENV = Object.fromEntries(
  (process.env.BENCH_DEFAULT_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
/** windowedLoad settles 3 s before its window: the load runs SECONDS in all, counted from its first request. */
const WINDOW_SECONDS = SECONDS - 3;

type Figures = {
  /** 2xx answers per second, from the first request to the window's close. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 2xx, by status (a 429 is the rate limit's). */
  non2xx: Record<string, number>;
  errors: number;
  serverCores: number;
  postgresCores: number;
};

async function measure(target: Target, options: autocannon.Options): Promise<Figures> {
  if (WARMUP_SECONDS > 0) await autocannon({ ...options, duration: WARMUP_SECONDS });
  const own = [...target.processes.map((child) => child.pid as number), ...(target.pids ?? [])];
  // A cluster's workers (WEB_CONCURRENCY) are the primary's children: their cores count too.
  const pids = [...own, ...(await Promise.all(own.map(childrenOf))).flat().map(Number)];
  const measured = await windowedLoad(options, WINDOW_SECONDS, async () => {
    const before = await sampleCpu(pids);
    const startedMs = performance.now();
    return async () => ({ before, after: await sampleCpu(pids), ms: performance.now() - startedMs });
  });
  const answered = measured.all.filter((sample) => sample.sentMs < measured.closesMs);
  const ok = answered.filter((sample) => sample.status < 300);
  const non2xx: Record<string, number> = {};
  for (const { status } of answered) if (status >= 300) non2xx[status] = (non2xx[status] ?? 0) + 1;
  const { before, after, ms } = measured.span;
  return {
    requestsPerSecond: Math.round(ok.length / (measured.closesMs / 1000)),
    p50Ms: percentile(answered, 0.5),
    p99Ms: percentile(answered, 0.99),
    non2xx,
    errors: measured.result.errors + measured.result.timeouts,
    serverCores: Number(((after.server - before.server) / (ms / 1000)).toFixed(2)),
    postgresCores: Number(((after.postgres - before.postgres) / (ms / 1000)).toFixed(2)),
  };
}

const paymentLoad = (target: Target, world: World): autocannon.Options => ({
  url: `${target.base}/payments`,
  connections: CONNECTIONS,
  method: 'POST',
  headers: { ...world.credentials.headers, 'content-type': 'application/json' },
  requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, body: world.paymentBody(randomUUID()) }) }],
});

const bareLoad = (target: Target): autocannon.Options => ({
  url: `${target.base}/payments`,
  connections: CONNECTIONS,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    data: { type: 'payments', attributes: { merchantId: 'mer_bare', transaction: { amount: '1999' } } },
  }),
});

const line = (name: string, f: Figures) =>
  `${name.padEnd(26)} ${String(f.requestsPerSecond).padStart(5)} req/s  p50 ${String(f.p50Ms).padStart(3)} ms  ` +
  `p99 ${String(f.p99Ms).padStart(4)} ms  non-2xx ${JSON.stringify(f.non2xx)}  errors ${f.errors}  ` +
  `cores: server ${f.serverCores}, PostgreSQL ${f.postgresCores}`;

const dist = await benchBuild();
const report: string[] = [];
try {
  for (let run = 1; run <= RUNS; run++) {
    await freshDatabase(`${POSTGRES}/pps_default_bare`, { migrate: false });
    await freshDatabase(`${POSTGRES}/pps_default`, { migrate: false });
    const bare = await startServer(['--import', 'tsx', 'bench/bare-server.ts'], {
      DATABASE_URL: `${POSTGRES}/pps_default_bare`,
    });
    const bareFigures = await measure(bare, bareLoad(bare));
    await stopAll(bare.processes);
    // As `npm start` runs: its environment, but for the database, the ports and the queues' prefix.
    const platform = await startServer(
      [join(dist, 'start.js')],
      {
        NODE_ENV: 'development',
        DATABASE_URL: `${POSTGRES}/pps_default`,
        DEMO_PORT: String(await freePort()),
        QUEUE_PREFIX: benchQueuePrefix('default'),
        ...PLATFORM_ENV,
      },
      { readyPath: '/readyz' },
    );
    const world = await prepareWorld(platform.base, 'dev-admin-token');
    const figures = await measure(platform, paymentLoad(platform, world));
    await stopAll(platform.processes);
    const ratio = (figures.requestsPerSecond / bareFigures.requestsPerSecond).toFixed(2);
    const lines = [
      `run ${run}`,
      line('bare Hono + postgres.js', bareFigures),
      line('npm start, tokenv3', figures),
      `ratio ${ratio}`,
    ];
    console.log(lines.join('\n'));
    report.push(...lines, '');
  }
} finally {
  await stopAll();
  await cluster?.destroy();
}
const stamp = resultStamp('default-');
mkdirSync('bench/results', { recursive: true });
const file = join('bench/results', `default-${stamp}.md`);
writeFileSync(
  file,
  [
    '# npm run bench:default',
    '',
    `${CONNECTIONS} connections, ${SECONDS} s each, ` +
      `${WARMUP_SECONDS > 0 ? `after ${WARMUP_SECONDS} s of the same load not counted` : 'counted from the first request'}; ` +
      `PostgreSQL ${WHERE === 'machine' ? POSTGRES.replace(/\/\/[^@]*@/, '//') : `a private cluster (${WHERE})`}` +
      `${process.env.BENCH_DEFAULT_ENV ? `; the platform with ${process.env.BENCH_DEFAULT_ENV}` : ''}.`,
    '',
    '```',
    ...report,
    '```',
    '',
  ].join('\n'),
);
console.log(`written to ${file}`);
process.exit(0);
