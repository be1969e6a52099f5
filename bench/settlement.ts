import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createAccount } from '@pps/gateway';
import { systemClock } from '@pps/shared/clock';
import { createDatabase } from '@pps/shared/db';
import { newId } from '@pps/shared/ids';
import { createLogger } from '@pps/shared/logger';
import { freshDatabase } from './fresh-database';
import { benchQueuePrefix, removeBenchKeys } from './servers';

/**
 * `npm run bench:settlement`: seeds BENCH_SETTLEMENT_COUNT (default 100,000) card payments with their capture
 * postings into a database of their own, made afresh (BENCH_DATABASE_URL, default pps_bench_settlement), starts 1 and then 2 settlement
 * processes (`services/settlement/src/main.ts`, default concurrency and BENCH_SETTLEMENT_BATCH per batch), makes
 * every payment due at once, and reports payments settled per second until none is left. Numbers only: the
 * machine is shared and noisy, so compare the rows of one run; nothing here is asserted.
 */
const COUNT = Number(process.env.BENCH_SETTLEMENT_COUNT ?? 100_000);
const BATCH = process.env.BENCH_SETTLEMENT_BATCH ?? '1000';
const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/pps_bench_settlement';

await freshDatabase(url); // each run starts from nothing, so one run's rows never slow the next
const database = createDatabase(url, { max: 4 });
const { sql } = database;
const account = await createAccount({
  ctx: { db: database.db, clock: systemClock, log: createLogger({ level: 'warn', name: 'bench' }) },
  input: { name: `settlement bench ${Date.now()}` },
});
const MERCHANTS = 50;
const merchantIds = Array.from({ length: MERCHANTS }, () => newId('merchant'));
// Bare merchant rows: settlement never reads the merchants' personal data, so placeholders do.
for (const [index, id] of merchantIds.entries()) {
  await sql`
    insert into merchants (id, account_id, status, account_type, account_name, email, personal_info,
      personal_address, verification_data, ssn_enc, ssn_last4, birth_date_enc, birth_date_last4, email_index,
      tax_id_index)
    values (${id}, ${account.account.id}, 'active', 'personal', ${`Bench Merchant ${index}`}, 'bench@example.com',
      '{}', '{}', '{}', 'x', '0000', 'x', '1985', ${randomBytes(8).toString('hex')}, ${randomBytes(8).toString('hex')})`;
}

const rows: { workers: number; seconds: number; perSecond: number }[] = [];
for (const workers of [1, 2]) rows.push(await run(workers));

console.log(
  `\n${COUNT.toLocaleString('en-US')} due card payments, batches of ${BATCH}, loopback PostgreSQL and Redis\n`,
);
console.log('| settlement processes | seconds | payments settled/s | vs one process |');
console.log('|---:|---:|---:|---:|');
for (const row of rows) {
  const ratio = (row.perSecond / rows[0]!.perSecond).toFixed(2);
  console.log(
    `| ${row.workers} | ${row.seconds.toFixed(2)} | ${Math.round(row.perSecond).toLocaleString('en-US')} | ${ratio} |`,
  );
}
await database.close();
await removeBenchKeys();
process.exit(0);

async function run(workers: number) {
  const prefix = `pay_bench${randomBytes(4).toString('hex')}`;
  await seed(prefix);
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: url,
    QUEUE_PREFIX: benchQueuePrefix('bench'),
    SETTLEMENT_INTERVAL_SECONDS: '1',
    SETTLEMENT_BATCH_SIZE: BATCH,
    RATE_LIMIT_RPS: '0',
    AUTH_FAILURE_LIMIT: '0',
    // Two processes on one host: a metrics port each would clash (a taken port stops the process).
    METRICS_PORT: '0',
  };
  const children: ChildProcess[] = Array.from({ length: workers }, () =>
    spawn(process.execPath, ['--import', 'tsx', 'services/settlement/src/main.ts'], { env, stdio: 'inherit' }),
  );
  await new Promise((resolve) => setTimeout(resolve, 5000)); // the processes start and their schedulers run idle

  const started = performance.now();
  await sql.begin(async (tx) => {
    await tx`update payments set settle_at = now() - interval '1 minute' where id like ${`${prefix}%`}`;
    // Statistics that know the records are due, as autovacuum's would soon after a change to every row (a day's
    // records reach them as they are written, never all at once). Left stale, they tell the planner that next to
    // nothing is due, and it sorts every due record for each batch.
    await tx`analyze payments`;
  });
  for (;;) {
    // Through the small partial index of due records, so watching costs the database next to nothing.
    const [left] =
      await sql`select count(*)::int as n from payments where settled_at is null and settle_at is not null`;
    if (left!.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM'))));
  console.log(`${workers} process(es): ${COUNT} settled in ${seconds.toFixed(2)} s`);
  return { workers, seconds, perSecond: COUNT / seconds };
}

/**
 * COUNT pending card payments of 10.00 (fees 59, net 941) due in a year, spread over the merchants, each with
 * its capture posting.
 */
async function seed(prefix: string) {
  await sql`
    insert into payments (id, account_id, merchant_id, payment_type, request_type, status, amount, currency, invoice,
      gross, fee_fixed, rate_basis_points, gross_minus_net, net, code, message, settle_at, created_at, updated_at)
    select ${prefix} || lpad(i::text, 8, '0'), ${account.account.id}, (${merchantIds}::text[])[1 + i % ${MERCHANTS}],
      'card', 'tokenv3', 'pending', 1000, 'USD', 'INV-BENCH', 1000, 30, 290, 59, 941, '0', 'Approved',
      now() + interval '1 year', now(), now()
    from generate_series(1, ${COUNT}) as i`;
  await sql`
    insert into ledger_entries (posting_id, account_id, payment_id, kind, ledger_account, amount, created_at)
    select 'lp_' || p.id, p.account_id, p.id, 'capture', line.account, line.amount, now()
    from payments p
    cross join lateral (values ('external:card', -1000), ('merchant:' || p.merchant_id || ':pending', 941),
      ('operator:fees', 59)) as line(account, amount)
    where p.id like ${`${prefix}%`}`;
}
