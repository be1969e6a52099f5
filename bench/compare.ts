import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { benchBuild } from './bench-build';
import { cpuPerRequest, sampleCpu } from './cpu';
import { freshDatabase, vacuumAnalyze } from './fresh-database';
import { benchQueuePrefix, startServer, stopAll, type Target } from './servers';
import { figuresOf, windowedLoad } from './window';
import { prepareWorld, type World } from './world';

/**
 * `npm run bench:compare -- <git revision>`: the tokenv3 payment load on this tree and on that revision, both
 * compiled and started as production starts them, each on a database of its own, loaded in turn
 * (BENCH_ROUNDS rounds, default 3, of BENCH_SECONDS each, default 10, at BENCH_CONNECTIONS, default 64). On a
 * shared machine two figures taken minutes apart differ more than two versions do; taken in turn, the noise falls on
 * both. Each is warmed up first (5 s, not counted), and each load counted once its connections are in
 * (`windowedLoad`). Prints each round and the means.
 *
 * The revision `.` is this tree again, so one setting is measured against another on the same code:
 * BENCH_THEN_ENV (`NAME=value,NAME=value`) is given to the revision's server only, e.g.
 * `BENCH_THEN_ENV=REQUEST_LOG=false npm run bench:compare -- .` is this tree without the request log, then with it.
 * BENCH_THEN_HEADERS (`Name: value,Name: value`) are sent with the revision's requests only, e.g.
 * `BENCH_THEN_HEADERS='PPS-Version: 2026-11-21' npm run bench:compare -- .` is this tree's payments in the oldest
 * API version against the same payments in the newest. BENCH_COMPARE_SCENARIO=authorize loads authorizations
 * (`capture: false`) instead of payments.
 */
const revision = process.argv[2];
if (!revision) throw new Error('usage: npm run bench:compare -- <git revision, or . for this tree>');
const thenEnv = Object.fromEntries(
  (process.env.BENCH_THEN_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const thenHeaders = Object.fromEntries(
  (process.env.BENCH_THEN_HEADERS ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf(':')).trim(), pair.slice(pair.indexOf(':') + 1).trim()]),
);
const sameTree = revision === '.';
/** How the revision's figures are named. */
const thenName = [sameTree ? 'this tree' : revision, process.env.BENCH_THEN_ENV, process.env.BENCH_THEN_HEADERS]
  .filter(Boolean)
  .join(', ');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP_SECONDS = 5;
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';

// The revision's tree, under .tmp so its bundle finds this checkout's node_modules; its own workspace packages are
// linked in its own node_modules, which resolution reaches first (else `@pps/*` would be this tree's code).
const tree = resolve('.tmp', `compare-${randomBytes(3).toString('hex')}`);
if (!sameTree) execFileSync('git', ['worktree', 'add', '--detach', tree, revision], { stdio: 'ignore' });
try {
  const current = await benchBuild();
  if (!sameTree) {
    linkWorkspaces(tree);
    const { build: buildThen } = (await import(join(tree, 'scripts/build.ts'))) as typeof import('../scripts/build');
    await buildThen(join(tree, 'dist'));
  }

  const env = (database: string) => ({
    DATABASE_URL: `${POSTGRES}/${database}`,
    QUEUE_PREFIX: benchQueuePrefix('compare'),
    RATE_LIMIT_RPS: '0',
    AUTH_FAILURE_LIMIT: '0',
    DATABASE_POOL_SIZE: '20',
  });
  // Each server migrates its own database with its own migrations.
  await freshDatabase(`${POSTGRES}/pps_compare_now`, { migrate: false });
  await freshDatabase(`${POSTGRES}/pps_compare_then`, { migrate: false });
  const now = await startServer([join(current, 'start.js')], env('pps_compare_now'));
  const then = await startServer([sameTree ? join(current, 'start.js') : join(tree, 'dist', 'start.js')], {
    ...env('pps_compare_then'),
    ...thenEnv,
  });
  const versions = [
    {
      name: thenName,
      target: then,
      world: await prepareWorld(then.base, 'dev-admin-token'),
      headers: thenHeaders,
      runs: [] as Run[],
    },
    {
      name: 'this tree',
      target: now,
      world: await prepareWorld(now.base, 'dev-admin-token'),
      headers: {},
      runs: [] as Run[],
    },
  ];
  // Warm-up, not counted: both JITs and connection pools get to their steady state first.
  for (const version of versions) {
    await autocannon({ ...paymentLoad(version.target, version.world, version.headers), duration: WARM_UP_SECONDS });
  }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const version of versions) {
      await vacuumAnalyze(`${POSTGRES}/pps_compare_now`, `${POSTGRES}/pps_compare_then`);
      const run = await load(version.target, version.world, version.headers);
      version.runs.push(run);
      console.log(`round ${round}  ${version.name.padEnd(12)} ${format(run)}`);
    }
  }
  const [before, after] = versions.map((version) => mean(version.runs)) as [Run, Run];
  console.log(`\nmean  ${thenName.padEnd(12)} ${format(before)}\nmean  ${'this tree'.padEnd(12)} ${format(after)}`);
  console.log(`this tree / ${thenName}: ${(after.requestsPerSecond / before.requestsPerSecond).toFixed(2)}× req/s`);
  await stopAll();
} finally {
  await stopAll();
  if (existsSync(tree)) execFileSync('git', ['worktree', 'remove', '--force', tree], { stdio: 'ignore' });
}
process.exit(0);

type Run = { requestsPerSecond: number; p99Ms: number; errors: number; serverMs: number; postgresMs: number };

/**
 * tokenv3 payments at BENCH_CONNECTIONS connections (64 unless set), each with a fresh requestId; authorizations
 * (`capture: false`) with BENCH_COMPARE_SCENARIO=authorize.
 */
function paymentLoad(target: Target, world: World, headers: Record<string, string> = {}): autocannon.Options {
  const body = process.env.BENCH_COMPARE_SCENARIO === 'authorize' ? world.authorizationBody : world.paymentBody;
  return {
    url: `${target.base}/payments`,
    connections: Number(process.env.BENCH_CONNECTIONS ?? 64),
    method: 'POST',
    headers: { ...world.credentials.headers, 'content-type': 'application/json', ...headers },
    requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, body: body(randomUUID()) }) }],
  };
}

/** One measured load (`windowedLoad`: counted once its connections are in). */
async function load(target: Target, world: World, headers: Record<string, string>): Promise<Run> {
  const pids = target.processes.map((child) => child.pid as number);
  const measured = await windowedLoad(paymentLoad(target, world, headers), SECONDS, async () => {
    const before = await sampleCpu(pids);
    return async () => ({ before, after: await sampleCpu(pids) });
  });
  const { requestsPerSecond, p99Ms, errors } = figuresOf(measured);
  const { before, after } = measured.span;
  return { requestsPerSecond, p99Ms, errors, ...cpuPerRequest(before, after, measured.inWindow.length) };
}

function mean(runs: Run[]): Run {
  const of = (key: keyof Run) => runs.reduce((sum, run) => sum + run[key], 0) / runs.length;
  return {
    requestsPerSecond: Math.round(of('requestsPerSecond')),
    p99Ms: Math.round(of('p99Ms')),
    errors: of('errors'),
    serverMs: Number(of('serverMs').toFixed(3)),
    postgresMs: Number(of('postgresMs').toFixed(3)),
  };
}

/** Links each workspace package of `root` (its package.json `workspaces`, `dir/*` patterns) into its node_modules. */
function linkWorkspaces(root: string): void {
  const { workspaces = [] } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
  for (const pattern of workspaces) {
    const parent = join(root, pattern.replace(/\/\*$/, ''));
    const folders = pattern.endsWith('/*') ? readdirSync(parent).map((name) => join(parent, name)) : [parent];
    for (const folder of folders) {
      const manifest = join(folder, 'package.json');
      if (!existsSync(manifest)) continue;
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string };
      mkdirSync(dirname(join(root, 'node_modules', name)), { recursive: true });
      symlinkSync(folder, join(root, 'node_modules', name));
    }
  }
}

function format(run: Run) {
  return (
    `${String(run.requestsPerSecond).padStart(5)} req/s  p99 ${String(run.p99Ms).padStart(4)} ms  errors ${run.errors}  ` +
    `CPU/payment: server ${run.serverMs} ms, PostgreSQL ${run.postgresMs} ms`
  );
}
