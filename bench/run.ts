import { systemClock } from '@pps/shared/clock';
import { loadConfig } from '@pps/shared/config';
import { createDatabase, runMigrations } from '@pps/shared/db';
import { createLogger } from '@pps/shared/logger';
import { closeServer, listen } from '@pps/shared/runtime';
import autocannon from 'autocannon';
import { createAccount } from '../services/gateway/src/admin/accounts.usecases';
import { createGatewayApp } from '../services/gateway/src/app';
import { AuthCache } from '../services/gateway/src/auth/auth-cache';
import { inProcessUpstream } from '../services/gateway/src/proxy/upstream';
import { createMerchantsApp } from '../services/merchants/src/app';
import { createPaymentsApp } from '../services/payments/src/app';
import { scenarios } from './scenarios';

/**
 * `npm run bench`: the whole service in this process on a loopback port, against its own database
 * (BENCH_DATABASE_URL, default pps_bench), loaded by autocannon. The machine is shared and noisy, so read
 * the numbers as ratios within one run (e.g. an authenticated call vs /healthz), never as absolutes.
 */
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/pps_bench';

// One account at thousands of requests a second: the gateway's rate limits are off for the benchmark.
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'test',
  DATABASE_URL: url,
  LOG_LEVEL: 'silent',
  RATE_LIMIT_RPS: '0',
  AUTH_FAILURE_LIMIT: '0',
});
await runMigrations(url);
const database = createDatabase(url, { max: 20 });
const log = createLogger({ level: 'silent' });
const deps = { config, db: database.db, log, clock: systemClock };
const gateway = createGatewayApp({
  config,
  db: database.db,
  log,
  clock: systemClock,
  auth: new AuthCache(database.db, config.AUTH_CACHE_TTL_MS),
  upstreams: {
    payments: inProcessUpstream('payments', createPaymentsApp(deps)),
    merchants: inProcessUpstream('merchants', createMerchantsApp(deps)),
  },
});
const { server, port } = await listen(gateway.fetch, 0, '127.0.0.1');
const base = `http://127.0.0.1:${port}`;
const credentials = await authenticate();

const rows: { name: string; rps: number; p50: number; p99: number; non2xx: number }[] = [];
for (const scenario of await scenarios(base, credentials)) {
  const result = await autocannon({
    url: `${base}${scenario.path}`,
    method: scenario.method,
    headers: { ...scenario.headers },
    body: scenario.body,
    requests: scenario.requests,
    connections: CONNECTIONS,
    duration: DURATION,
  });
  rows.push({
    name: scenario.name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  });
}

const baseline = rows[0]?.rps ?? 1;
console.log(`\n${DURATION}s per scenario, ${CONNECTIONS} connections, loopback, one process\n`);
console.log(
  'scenario'.padEnd(44),
  'req/s'.padStart(8),
  'p50 ms'.padStart(8),
  'p99 ms'.padStart(8),
  'vs first'.padStart(9),
  'non-2xx'.padStart(8),
);
for (const row of rows) {
  console.log(
    row.name.padEnd(44),
    String(row.rps).padStart(8),
    String(row.p50).padStart(8),
    String(row.p99).padStart(8),
    (row.rps / baseline).toFixed(2).padStart(9),
    String(row.non2xx).padStart(8),
  );
}
await closeServer(server);
await database.close();
process.exit(0);

async function authenticate() {
  const created = await createAccount(database.db, { name: `bench ${Date.now()}` });
  const post = async (path: string, attributes: Record<string, string>) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': created.apiKey },
      body: JSON.stringify({ data: { type: 'auth', attributes } }),
    });
    return (await response.json()).data.attributes;
  };
  const { appKey } = await post('/auth/key', { appId: created.appId });
  const { appToken } = await post('/auth/token', { appKey });
  return {
    headers: { authorization: `Bearer ${appToken}`, 'x-api-key': created.apiKey, appid: created.appId },
  };
}
