import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '@pps/shared/testing';
import autocannon from 'autocannon';
import { benchBuild } from './bench-build';
import { freshDatabase } from './fresh-database';
import { benchQueuePrefix, startServer, stopAll } from './servers';
import { prepareWorld } from './world';

/**
 * `npm run bench:profile`: the compiled platform (one process) under the tokenv3 payment load (or `GET /payments/{id}`
 * with BENCH_PROFILE_SCENARIO=get) with `--cpu-prof`,
 * then the functions where its CPU went (self time, top BENCH_PROFILE_TOP, default 30). BENCH_PROFILE_AS=default
 * runs it as `npm start` does (bench:default's environment) instead of with the limits off. The profile stays in
 * .tmp/profiles for Chrome DevTools.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** `payment` (tokenv3, a fresh requestId each) or `get` (`GET /payments/{id}`). */
const SCENARIO = process.env.BENCH_PROFILE_SCENARIO ?? 'payment';
const profiles = join('.tmp', 'profiles', randomBytes(3).toString('hex'));
const outdir = await benchBuild();
const url = 'postgres://postgres@127.0.0.1:5432/pps_bench';
await freshDatabase(url);
/** BENCH_PROFILE_AS=default: the platform as `npm start` runs it (bench:default), its limits and shop on. */
const asDefault = process.env.BENCH_PROFILE_AS === 'default';
const { base } = await startServer(
  ['--cpu-prof', `--cpu-prof-dir=${profiles}`, join(outdir, 'start.js')],
  asDefault
    ? {
        NODE_ENV: 'development',
        DATABASE_URL: url,
        DEMO_PORT: String(await freePort()),
        QUEUE_PREFIX: benchQueuePrefix('profile'),
      }
    : {
        DATABASE_URL: url,
        RATE_LIMIT_RPS: '0',
        AUTH_FAILURE_LIMIT: '0',
        DATABASE_POOL_SIZE: '20',
        QUEUE_PREFIX: benchQueuePrefix('profile'),
      },
  asDefault ? { readyPath: '/readyz' } : {},
);
const world = await prepareWorld(base, 'dev-admin-token');
const result = await autocannon(
  SCENARIO === 'get'
    ? {
        url: `${base}/payments/${world.paymentId}`,
        connections: 64,
        duration: SECONDS,
        headers: world.credentials.headers,
      }
    : {
        url: `${base}/payments`,
        connections: 64,
        duration: SECONDS,
        method: 'POST',
        headers: { ...world.credentials.headers, 'content-type': 'application/json' },
        requests: [
          { method: 'POST', setupRequest: (request) => ({ ...request, body: world.paymentBody(randomUUID()) }) },
        ],
      },
);
console.log(`${Math.round(result.requests.average)} req/s, ${result.requests.total} requests, errors ${result.non2xx}`);
await stopAll(); // the profile is written on exit

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number };
const [file] = await readdir(profiles);
const profile = JSON.parse(await readFile(join(profiles, file as string), 'utf8')) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
};
const selfTime = new Map<string, number>();
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
profile.samples.forEach((id, index) => {
  const frame = byId.get(id)?.callFrame;
  if (!frame) return;
  const where = frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(\.tmp|work)\//, '');
  const key = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
  selfTime.set(key, (selfTime.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0));
});
const total = [...selfTime.values()].reduce((sum, value) => sum + value, 0);
const byPackage = new Map<string, number>();
for (const [key, micros] of selfTime) {
  const pkg = /^\S+ (@?[\w.-]+(?:\/[\w.-]+)?)\//.exec(key)?.[1] ?? key.split(' ')[0] ?? key;
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
}
const top = Number(process.env.BENCH_PROFILE_TOP ?? 30);
console.log(
  `\nCPU ${(total / 1e6).toFixed(1)} s; per request ${(total / 1000 / result.requests.total).toFixed(2)} ms\n`,
);
for (const [key, micros] of [...selfTime].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${((micros / total) * 100).toFixed(1).padStart(5)} %  ${key}`);
}
console.log('\nby package or function:');
for (const [key, micros] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
  console.log(`${((micros / total) * 100).toFixed(1).padStart(5)} %  ${key}`);
}
console.log(`\nprofile: ${join(profiles, file as string)}`);
process.exit(0);
