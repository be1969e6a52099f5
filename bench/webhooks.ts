import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createAccount } from '@pps/gateway';
import { systemClock } from '@pps/shared/clock';
import { loadConfig } from '@pps/shared/config';
import { FieldCipher } from '@pps/shared/crypto';
import { createDatabase, schema } from '@pps/shared/db';
import { writeEvents } from '@pps/shared/events';
import { newId } from '@pps/shared/ids';
import { createLogger } from '@pps/shared/logger';
import { newWebhookSecret } from '@pps/shared/webhooks';
import { freshDatabase } from './fresh-database';

/**
 * `npm run bench:webhooks`: BENCH_WEBHOOK_EVENTS (default 10,000) events written to the outbox in transactions of
 * 100, delivered by one webhooks process (`services/webhooks/src/main.ts`: relay + delivery workers) to a local
 * receiver subscribed to everything. Reports deliveries per second and the lag from each event's commit to its
 * receipt (p50, p99). A database of its own, made afresh (BENCH_DATABASE_URL, default pps_bench_webhooks).
 * BENCH_WORKER_NODE_ARGS passes Node flags to the worker process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * Numbers only: the machine is shared and noisy, nothing here is asserted.
 */
const COUNT = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/pps_bench_webhooks';

await freshDatabase(url); // each run starts from nothing, so one run's rows never slow the next

const config = loadConfig({
  ...process.env,
  NODE_ENV: 'test',
  DATABASE_URL: url,
  RATE_LIMIT_RPS: '0',
  AUTH_FAILURE_LIMIT: '0',
});
const database = createDatabase(url, { max: 4 });
const account = await createAccount({
  ctx: { db: database.db, clock: systemClock, log: createLogger({ level: 'warn', name: 'bench' }) },
  input: { name: `webhook bench ${Date.now()}` },
});

const committedAt = new Map<string, number>();
const lags: number[] = [];
let lastReceipt = 0;
let done: () => void = () => {};
const allReceived = new Promise<void>((resolve) => {
  done = resolve;
});
const receiver = createServer((request, response) => {
  const id = String(request.headers['webhook-id']);
  request.resume();
  request.on('end', () => {
    const now = performance.now();
    const committed = committedAt.get(id);
    if (committed !== undefined) {
      lags.push(now - committed);
      committedAt.delete(id);
      lastReceipt = now;
      if (lags.length === COUNT) done();
    }
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const port = (receiver.address() as { port: number }).port;

const now = new Date();
await database.db.insert(schema.webhookEndpoints).values({
  id: newId('webhook'),
  accountId: account.account.id,
  url: `http://127.0.0.1:${port}/hooks`,
  events: ['*'],
  secretEnc: new FieldCipher(config.DATA_ENCRYPTION_KEYS).encrypt(newWebhookSecret()),
  createdAt: now,
  updatedAt: now,
});

const workerArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean); // e.g. --cpu-prof
const worker = spawn(process.execPath, [...workerArgs, '--import', 'tsx', 'services/webhooks/src/main.ts'], {
  env: {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: url,
    QUEUE_PREFIX: `{pps-bench-${randomBytes(3).toString('hex')}}`,
    RATE_LIMIT_RPS: '0',
    AUTH_FAILURE_LIMIT: '0',
  },
  stdio: 'inherit',
});
await new Promise((resolve) => setTimeout(resolve, 5000)); // the relay starts listening

const started = performance.now();
for (let offset = 0; offset < COUNT; offset += 100) {
  const size = Math.min(100, COUNT - offset);
  const inputs = Array.from({ length: size }, (_, i) => ({
    accountId: account.account.id,
    type: 'payment.completed' as const,
    resource: {
      type: 'payments',
      id: `pay_bench${offset + i}`,
      attributes: { status: 'completed', transaction: { amount: '1000', currency: 'USD' } },
    },
    previousStatus: 'pending',
  }));
  const written = await database.db.transaction((tx) => writeEvents(tx, inputs));
  const at = performance.now();
  for (const event of written) committedAt.set(event.id, at);
}
await allReceived;
const seconds = (lastReceipt - started) / 1000;
lags.sort((a, b) => a - b);
const percentile = (p: number) => lags[Math.min(lags.length - 1, Math.floor((p / 100) * lags.length))]!;

console.log(`\n${COUNT.toLocaleString('en-US')} events, one webhooks process, loopback receiver\n`);
console.log('| deliveries/s | seconds | lag p50 ms | lag p99 ms |');
console.log('|---:|---:|---:|---:|');
console.log(
  `| ${Math.round(COUNT / seconds).toLocaleString('en-US')} | ${seconds.toFixed(2)} | ${Math.round(percentile(50))} | ${Math.round(percentile(99))} |`,
);
await new Promise((resolve) => worker.once('exit', resolve).kill('SIGTERM'));
receiver.close();
await database.close();
process.exit(0);
