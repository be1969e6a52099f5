import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { benchBuild } from './bench-build';
import { cpuPerRequest, sampleCpu } from './cpu';
import { freshDatabase, vacuumAnalyze } from './fresh-database';
import { benchQueuePrefix, startServer, stopAll } from './servers';
import { figuresOf, percentile, SETTLE_SECONDS, windowedLoad } from './window';
import { prepareWorld, type World } from './world';

/**
 * `npm run bench:latency`: the payment path under a real acquirer's latency (docs/design.md, Idempotency and
 * concurrency). The platform, compiled and started as production starts it, is loaded twice on a fresh database:
 * with the sandbox answering at once (`SANDBOX_LATENCY_MS=0`, BENCH_CONNECTIONS connections, default 64), then with
 * every processor answer taking BENCH_LATENCY_MS (default 250) under BENCH_LATENCY_CONNECTIONS (default 512), while a
 * second load, from a process of its own, reads `GET /payments/{id}` (BENCH_READ_CONNECTIONS, default 8): a read must
 * not wait for a connection that a processor call holds. Prints payments per second and p99 of each, the reads' p99,
 * and the ratio to the lower of the latency-0 figure and connections ÷ latency (what the processor's latency alone
 * allows), and the CPU the server and PostgreSQL took per payment (the reads' share included, when they ran) with
 * the cores they kept busy: a server whose process stays near one core is bound by its main thread. Numbers only.
 * Each figure is of a window that opens once the load's connections are in (`windowedLoad`: a busy server takes
 * seconds to accept 512 new ones); the reads start as it opens, and the payments' p99 over the whole run is printed
 * beside it.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 250);
const LATENCY_CONNECTIONS = Number(process.env.BENCH_LATENCY_CONNECTIONS ?? 512);
const READ_CONNECTIONS = Number(process.env.BENCH_READ_CONNECTIONS ?? 8);
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';

type Figures = { requestsPerSecond: number; p99Ms: number; errors: number };
/** The server's and PostgreSQL's CPU per payment (the reads' included, when they ran), and the cores they kept busy. */
type Cpu = { serverMs: number; postgresMs: number; serverCores: number; postgresCores: number };

const outdir = await benchBuild();
try {
  const atOnce = await measure(0, CONNECTIONS, 0);
  const slow = await measure(LATENCY_MS, LATENCY_CONNECTIONS, READ_CONNECTIONS);
  const allowed = Math.min(atOnce.payments.requestsPerSecond, LATENCY_CONNECTIONS / (LATENCY_MS / 1000));
  console.log(
    `\n${SECONDS} s each, from ${SETTLE_SECONDS} s after the load began; loopback, load generator on the same machine\n`,
  );
  console.log(
    '| sandbox latency | connections | payments/s | payments p99 ms | errors | reads p99 ms (reads/s, connections) | CPU ms per payment: server · PostgreSQL | cores busy: server · PostgreSQL |',
  );
  console.log('|---:|---:|---:|---:|---:|---|---|---|');
  for (const [latency, connections, run] of [
    [0, CONNECTIONS, atOnce],
    [LATENCY_MS, LATENCY_CONNECTIONS, slow],
  ] as const) {
    const reads = run.reads
      ? `${run.reads.p99Ms} (${run.reads.requestsPerSecond}/s, ${READ_CONNECTIONS} connections), ${run.reads.errors} errors`
      : '—';
    console.log(
      `| ${latency} ms | ${connections} | ${run.payments.requestsPerSecond} | ${run.payments.p99Ms} | ${run.payments.errors} | ${reads} | ` +
        `${run.cpu.serverMs} · ${run.cpu.postgresMs} | ${run.cpu.serverCores} · ${run.cpu.postgresCores} |`,
    );
  }
  console.log(
    `\nAt ${LATENCY_MS} ms: ${slow.payments.requestsPerSecond} payments/s = ${(slow.payments.requestsPerSecond / allowed).toFixed(2)} ` +
      `of min(${atOnce.payments.requestsPerSecond} at latency 0, ${LATENCY_CONNECTIONS} ÷ ${LATENCY_MS / 1000} s = ` +
      `${Math.round(LATENCY_CONNECTIONS / (LATENCY_MS / 1000))}).`,
  );
  console.log(
    `Payments p99 over the whole runs, connections' first requests included: ${atOnce.wholeRunP99Ms} ms at ` +
      `latency 0, ${slow.wholeRunP99Ms} ms at ${LATENCY_MS} ms.`,
  );
} finally {
  await stopAll();
}
process.exit(0);

/** One server with this sandbox latency: payments under `connections`, and reads beside them when asked. */
async function measure(latencyMs: number, connections: number, readConnections: number) {
  const database = `${POSTGRES}/pps_bench_latency`;
  await freshDatabase(database);
  const server = await startServer([join(outdir, 'start.js')], {
    DATABASE_URL: database,
    QUEUE_PREFIX: benchQueuePrefix('bench'),
    RATE_LIMIT_RPS: '0',
    AUTH_FAILURE_LIMIT: '0',
    DATABASE_POOL_SIZE: process.env.BENCH_POOL_SIZE ?? '20',
    SANDBOX_LATENCY_MS: String(latencyMs),
  });
  const world = await prepareWorld(server.base, 'dev-admin-token');
  // Warm-up, not counted: the JIT and the pool reach their steady state first.
  await autocannon({ ...paymentLoad(server.base, world, Math.min(connections, 64)), duration: 5 });
  await vacuumAnalyze(database);
  const pids = server.processes.map((child) => child.pid as number);
  const paid = await windowedLoad(paymentLoad(server.base, world, connections), SECONDS, async () => {
    const before = await sampleCpu(pids);
    const read =
      readConnections > 0 ? reads(`${server.base}/payments/${world.paymentId}`, world, readConnections) : undefined;
    return async () => ({ before, after: await sampleCpu(pids), read: await read });
  });
  await stopAll(server.processes);
  const { before, after, read } = paid.span;
  const cpu: Cpu = {
    ...cpuPerRequest(before, after, paid.inWindow.length),
    serverCores: Number(((after.server - before.server) / paid.seconds).toFixed(2)),
    postgresCores: Number(((after.postgres - before.postgres) / paid.seconds).toFixed(2)),
  };
  return { payments: figuresOf(paid), wholeRunP99Ms: percentile(paid.all, 0.99), reads: read && figures(read), cpu };
}

/**
 * `GET /payments/{id}` under `connections`, measured by autocannon in a process of its own: in this one, the
 * payments' load generator (hundreds of connections, a body built per request) would delay the reads' own timing.
 */
async function reads(url: string, world: World, connections: number): Promise<autocannon.Result> {
  const headers = Object.entries(world.credentials.headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]);
  const child = spawn(
    process.execPath,
    [
      join('node_modules', 'autocannon', 'autocannon.js'),
      '--json',
      '-c',
      String(connections),
      '-d',
      String(SECONDS),
      ...headers,
      url,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`autocannon for the reads exited ${code}`);
  return JSON.parse(output) as autocannon.Result;
}

/** tokenv3 payments, each with a fresh requestId. */
function paymentLoad(base: string, world: World, connections: number): autocannon.Options {
  return {
    url: `${base}/payments`,
    method: 'POST',
    headers: { ...world.credentials.headers, 'content-type': 'application/json' },
    requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, body: world.paymentBody(randomUUID()) }) }],
    connections,
  };
}

/** The reads' figures, from autocannon's own report of their run (started as the payments' window opened). */
function figures(result: autocannon.Result): Figures {
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}
