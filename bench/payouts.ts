import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { createAccount } from '@pps/gateway';
import { createDataCipher } from '@pps/payments';
import { addBusinessDays, pacificDate, startOfPacificDay, systemClock } from '@pps/shared/clock';
import { loadConfig } from '@pps/shared/config';
import { createDatabase } from '@pps/shared/db';
import { createLogger } from '@pps/shared/logger';
import { enqueue, queuePrefixOf, queues, redisConnection } from '@pps/shared/queues';
import { Queue } from 'bullmq';
import { sampleCpu } from './cpu';
import { freshDatabase } from './fresh-database';
import { benchQueuePrefix, removeBenchKeys } from './servers';

/**
 * `npm run bench:payouts`: seeds BENCH_PAYOUT_MERCHANTS (default 10,000) merchants straight into a database of their
 * own, made afresh (BENCH_DATABASE_URL, default pps_bench_payouts), each with a bank account version, a daily payout
 * schedule and an available balance (a `payment` balance transaction and its balanced ledger entries); starts 1 and
 * then 2 settlement processes (`services/settlement/src/main.ts`, one job at a time each, PAYOUT_BATCH_SIZE
 * BENCH_PAYOUT_BATCH), makes every merchant due at once, enqueues one payout run per process, and reports merchants
 * paid out and filed per second until every payout is in a NACHA file, with the files' sizes, the CPU a payout
 * costs the settlement processes and PostgreSQL, and how many cores they kept busy (what a second process can add
 * is what the first leaves of the machine). The account's sandbox
 * clock is set to noon of the next business day, so the run finds a business day whatever day the bench runs.
 * Numbers only: the machine is shared and noisy, so compare the rows of one run; nothing here is asserted.
 */
const COUNT = Number(process.env.BENCH_PAYOUT_MERCHANTS ?? 10_000);
const BATCH = process.env.BENCH_PAYOUT_BATCH ?? '1000';
const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/pps_bench_payouts';
const config = loadConfig({ ...process.env, DATABASE_URL: url });
const cipher = createDataCipher(config);

type Row = {
  processes: number;
  seconds: number;
  perSecond: number;
  files: number[];
  /** CPU milliseconds per payout: the settlement processes', PostgreSQL's. */
  cpu: { serverMs: number; postgresMs: number };
  /** Cores busy on average during the run (settlement processes and PostgreSQL). */
  cores: number;
};
const rows: Row[] = [];
for (const processes of [1, 2]) rows.push(await run(processes));

console.log(`\n${COUNT.toLocaleString('en-US')} due merchants, batches of ${BATCH}, loopback PostgreSQL and Redis\n`);
console.log(
  '| settlement processes | seconds | merchants paid out and filed/s | vs one process | CPU ms per payout (processes + PostgreSQL) | cores busy | NACHA files (bytes) |',
);
console.log('|---:|---:|---:|---:|---:|---:|---|');
for (const row of rows) {
  const ratio = (row.perSecond / rows[0]!.perSecond).toFixed(2);
  const files = `${row.files.length} × ${[...new Set(row.files)].map((b) => b.toLocaleString('en-US')).join(' / ')}`;
  const cpu = `${row.cpu.serverMs.toFixed(3)} + ${row.cpu.postgresMs.toFixed(3)}`;
  console.log(
    `| ${row.processes} | ${row.seconds.toFixed(2)} | ${Math.round(row.perSecond).toLocaleString('en-US')} | ${ratio} | ${cpu} | ${row.cores.toFixed(2)} of ${availableParallelism()} | ${files} |`,
  );
}
await removeBenchKeys();
process.exit(0);

async function run(processes: number): Promise<Row> {
  await freshDatabase(url); // each run starts from nothing, so one run's rows never slow the next
  const database = createDatabase(url, { max: 4 });
  const { sql } = database;
  const accountId = await seed(database);
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: url,
    QUEUE_PREFIX: benchQueuePrefix('bench'),
    // Only the runs enqueued below: the schedulers' first runs find nothing due, the next are an hour away.
    SETTLEMENT_INTERVAL_SECONDS: '3600',
    PAYOUT_INTERVAL_SECONDS: '3600',
    PAYOUT_BATCH_SIZE: BATCH,
    SETTLEMENT_CONCURRENCY: '1',
    METRICS_PORT: '0',
  };
  const children: ChildProcess[] = Array.from({ length: processes }, () =>
    spawn(process.execPath, ['--import', 'tsx', 'services/settlement/src/main.ts'], { env, stdio: 'inherit' }),
  );
  await new Promise((resolve) => setTimeout(resolve, 5000)); // the processes start and their schedulers run idle

  const queue = new Queue(queues.settlement, {
    connection: redisConnection(config),
    prefix: queuePrefixOf(config, queues.settlement),
  });
  await sql.begin(async (tx) => {
    await tx`update payout_schedules set last_run_on = null where account_id = ${accountId}`;
    await tx`analyze payout_schedules`;
  });
  const pids = children.map((child) => child.pid!);
  const cpuBefore = await sampleCpu(pids);
  const started = performance.now();
  // One run per process: each takes one (one job at a time), and they share the merchants by SKIP LOCKED.
  await Promise.all(Array.from({ length: processes }, () => enqueue(queue, 'payoutRun', {})));
  for (;;) {
    const [left] = await sql`
      select (select count(*)::int from payout_schedules where last_run_on is null) +
        (select count(*)::int from payouts where ach_file_id is null) as n`;
    if (left!.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = await sampleCpu(pids);
  const serverSeconds = cpuAfter.server - cpuBefore.server;
  const postgresSeconds = cpuAfter.postgres - cpuBefore.postgres;
  await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM'))));
  await queue.close();
  const [made] = await sql`select count(*)::int as n from payouts`;
  const files = await sql`select content from ach_files order by created_at, id`;
  const sizes = files.map((file) => Buffer.byteLength(cipher.decrypt(file.content as string)));
  const [ledger] = await sql`select coalesce(sum(amount), 0)::int as total from ledger_entries`;
  console.log(
    `${processes} process(es): ${made!.n} payouts in ${files.length} files in ${seconds.toFixed(2)} s (ledger sum ${ledger!.total})`,
  );
  await database.close();
  return {
    processes,
    seconds,
    perSecond: COUNT / seconds,
    files: sizes,
    cpu: { serverMs: (serverSeconds * 1000) / COUNT, postgresMs: (postgresSeconds * 1000) / COUNT },
    cores: (serverSeconds + postgresSeconds) / seconds,
  };
}

/**
 * The account (its clock at noon Pacific of the next business day) and COUNT active merchants, each with a bank
 * account version (personal or business, checking or savings), a daily schedule already run that day, and an
 * available balance of 100.00 and some cents: a `payment` balance transaction and its ledger entries
 * (external:card → the merchant's available), so the ledger balances and Σ net is the merchant's balance.
 */
async function seed(database: ReturnType<typeof createDatabase>): Promise<string> {
  const { sql } = database;
  const { account } = await createAccount({
    ctx: { db: database.db, clock: systemClock, log: createLogger({ level: 'warn', name: 'bench' }) },
    input: { name: `payouts bench ${Date.now()}` },
  });
  const noon = new Date(startOfPacificDay(addBusinessDays(pacificDate(new Date()), 1)).getTime() + 12 * 3600_000);
  const offset = Math.ceil((noon.getTime() - Date.now()) / 1000);
  const today = pacificDate(noon);
  await sql`update accounts set clock_offset_seconds = ${offset} where id = ${account.id}`;
  const prefix = randomBytes(3).toString('hex');
  const accountNumber = cipher.encrypt('000123456789');
  const routingNumber = cipher.encrypt('021000021');
  await sql`
    insert into merchants (id, account_id, status, account_type, account_name, email, personal_info,
      personal_address, verification_data, ssn_enc, ssn_last4, birth_date_enc, birth_date_last4, email_index,
      tax_id_index)
    select 'mer_' || ${prefix} || lpad(i::text, 8, '0'), ${account.id}, 'active', 'personal',
      'Bench Merchant ' || i, 'bench@example.com', '{}', '{}', '{}', 'x', '0000', 'x', '1985',
      md5('e' || ${prefix} || i), md5('t' || ${prefix} || i)
    from generate_series(1, ${COUNT}) as i`;
  await sql`
    insert into merchant_bank_accounts (id, merchant_id, version, bank_name, account_ownership, account_type,
      account_name, account_number_enc, routing_number_enc, last4, routing_last4)
    select 'bnk_' || ${prefix} || lpad(i::text, 8, '0'), 'mer_' || ${prefix} || lpad(i::text, 8, '0'), 1,
      'Bench Bank', case when i % 2 = 0 then 'business' else 'personal' end,
      case when i % 3 = 0 then 'savings' else 'checking' end, 'Bench Owner ' || i, ${accountNumber},
      ${routingNumber}, '6789', '0021'
    from generate_series(1, ${COUNT}) as i`;
  await sql`
    insert into payout_schedules (merchant_id, account_id, interval, delay_days, last_run_on, created_at, updated_at)
    select 'mer_' || ${prefix} || lpad(i::text, 8, '0'), ${account.id}, 'daily', 0, ${today}, now(), now()
    from generate_series(1, ${COUNT}) as i`;
  await sql`
    insert into balance_transactions (id, account_id, merchant_id, type, amount, fee, net, source_id, posting_id,
      status, available_on, created_at)
    select 'txn_' || ${prefix} || lpad(i::text, 8, '0'), ${account.id}, 'mer_' || ${prefix} || lpad(i::text, 8, '0'),
      'payment', 10000 + i, 0, 10000 + i, 'pay_' || ${prefix} || i, 'lp_' || ${prefix} || i, 'available',
      now() - interval '1 day', now() - interval '1 day'
    from generate_series(1, ${COUNT}) as i`;
  await sql`
    insert into ledger_entries (posting_id, account_id, payment_id, kind, ledger_account, amount, created_at)
    select 'lp_' || ${prefix} || i, ${account.id}, 'pay_' || ${prefix} || i, 'capture', line.account, line.amount,
      now() - interval '1 day'
    from generate_series(1, ${COUNT}) as i
    cross join lateral (values ('external:card', -(10000 + i)),
      ('merchant:mer_' || ${prefix} || lpad(i::text, 8, '0') || ':available', 10000 + i)) as line(account, amount)`;
  await sql`analyze`;
  return account.id;
}
