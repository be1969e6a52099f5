import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '@pps/shared/config';
import { createDatabase } from '@pps/shared/db';
import { createLogger } from '@pps/shared/logger';
import { benchBuild } from './bench-build';
import { accountPages, consoleSession, OPERATOR_PAGES, timedExport } from './console-pages';
import { freshDatabase, vacuumAnalyze } from './fresh-database';
import { historySeeder, historyTemplate } from './history-seed';
import { resultStamp } from './results-stamp';
import { benchQueuePrefix, startServer, stopAll, type Target } from './servers';
import { prepareWorld, type World } from './world';

/**
 * `npm run bench:history`: whether the calls a merchant makes every day stay as fast as its history grows. One
 * merchant's card payments are grown to each of BENCH_HISTORY_SIZES (default 1000,100000,1000000) in a database of
 * its own, made afresh (pps_bench_history): each size grows the previous one, in-process through the platform's
 * own write path, then settled (bench/history-seed.ts says how). At each size the platform is started as
 * production starts it (`node dist/start.js`, everything in one process), what the history made available is paid
 * out (`payOutHistory`), its outbox relay is let catch up with the seeded events, the database is vacuumed and analyzed (`vacuumAnalyze`), and each call is timed over HTTP one
 * request at a time, BENCH_HISTORY_SAMPLES times (default 200) after 20 not counted: the balance, the first page
 * of payments, a deep page by offset and by cursor (`startingAfter`, "n/a" when the server refuses or ignores
 * it), the first page with each of the console's filters (the card's last four, the customer's email, an amount
 * range, a creation range) and the account's first page, the first page of balance transactions, a new tokenv3
 * payment and a manual payout of 1.00. The history is paid by a customer's vault token, so every filter matches
 * every seeded payment and each first page is a full page at every size. Reported: p50 and p99 per call and size,
 * the ratio of each call's p50 at the largest size to its p50 at the smallest (the
 * target is at most 1.5 for every call but the offset page, which reads past every row it skips), and each
 * table's rows and size. The server is stopped while the history grows: its payment recovery would otherwise
 * take the seeded records its own sandbox never authorized, and fail them. Numbers only, nothing asserted.
 * Results go to bench/results/history-<date>.json and .md.
 */
const SIZES = (process.env.BENCH_HISTORY_SIZES ?? '1000,100000,1000000').split(',').map(Number);
const SAMPLES = Number(process.env.BENCH_HISTORY_SAMPLES ?? 200);
const WARM_UP_SAMPLES = 20;
/** The largest amount `POST /payouts` takes (1,000,000.00). */
const MAX_PAYOUT_CENTS = 100_000_000;
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const ADMIN_TOKEN = 'dev-admin-token';
/** The card bench/world.ts tokenizes: the seeded payments are authorized with it. */
const BENCH_CARD = '4111111111111111';
/** The customer whose token pays the history (`customerEmail`). */
const BENCH_CUSTOMER_EMAIL = 'buyer@bench.example';
const HOUR_MS = 3_600_000;
/** The days of history the timed CSV export covers: a payment a minute, so over 100,000 rows from 1,000,000 on. */
const EXPORT_DAYS = 71;
const TABLES = [
  'payments',
  'ledger_entries',
  'balance_transactions',
  'events',
  'idempotency_keys',
  'webhook_deliveries',
] as const;

if (SIZES.some((size) => !Number.isInteger(size) || size < 100)) {
  throw new Error(`BENCH_HISTORY_SIZES must be integers of at least 100, got ${process.env.BENCH_HISTORY_SIZES}`);
}

type Figures = { p50Ms: number; p99Ms: number; errors: number } | { unavailable: string };
type Measured = {
  size: number;
  calls: Record<string, Figures>;
  tables: Record<string, { rows: number; mb: number }>;
  /** The console's CSV export of `EXPORT_DAYS` days of the history: its seconds and rows. */
  export?: { seconds: number; rows: number };
};
type Call = {
  name: string;
  method: 'GET' | 'POST';
  path: () => string;
  body?: () => string;
  status: number;
  /** Why the call is not timed ("n/a" in the report), when it is not. */
  unavailable?: string;
  /** Its own headers (a console page's session cookie) instead of the API's. */
  headers?: Record<string, string>;
};

const url = `${POSTGRES}/pps_bench_history`;
const outdir = await benchBuild();
await freshDatabase(url);
const config = loadConfig({ ...process.env, DATABASE_URL: url });
const log = createLogger({ level: 'error', name: 'bench-history' });
const database = createDatabase(url, { max: 4 });
const platformEnv = {
  DATABASE_URL: url,
  QUEUE_PREFIX: benchQueuePrefix('history'),
  RATE_LIMIT_RPS: '0',
  AUTH_FAILURE_LIMIT: '0',
  // The settlement and payout schedulers' first runs find nothing due, and the next are an hour away: no pass
  // runs in the middle of a measurement.
  SETTLEMENT_INTERVAL_SECONDS: '3600',
  PAYOUT_INTERVAL_SECONDS: '3600',
};

const results: Measured[] = [];
const seeding: { size: number; recordSeconds: number; settleSeconds: number }[] = [];
try {
  const first = await startServer([join(outdir, 'start.js')], platformEnv);
  const world = await prepareWorld(first.base, ADMIN_TOKEN);
  const merchantId = JSON.parse(world.paymentBody()).data.attributes.merchantId as string;
  // Manual payouts only: an automatic payout would take the whole available balance the payouts are timed on.
  await call(first.base, 'PUT', `/merchants/${merchantId}/payout-schedule`, world.credentials.headers, {
    data: { type: 'merchants', attributes: { interval: 'manual' } },
  });
  const templateId = await customerPayment(first.base, world);
  await stopAll(first.processes);

  const seeder = historySeeder(
    { db: database.db, config, log },
    await historyTemplate(database.db, templateId, BENCH_CARD),
  );
  for (const size of SIZES) {
    const started = performance.now();
    let reported = seeder.seeded;
    const times = await seeder.growTo(size, (seeded) => {
      if (seeded - reported < 100_000) return;
      reported = seeded;
      console.log(`  ${seeded.toLocaleString('en-US')} payments recorded`);
    });
    seeding.push({ size, ...times });
    console.log(
      `${size.toLocaleString('en-US')} payments: recorded in ${times.recordSeconds.toFixed(1)} s, settled in ` +
        `${times.settleSeconds.toFixed(1)} s (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    const server = await startServer([join(outdir, 'start.js')], platformEnv);
    await payOutHistory(server, world, merchantId);
    const relayStarted = performance.now();
    await relayCaughtUp();
    const vacuumStarted = performance.now();
    await vacuumAnalyze(url);
    console.log(
      `  outbox relay caught up in ${((vacuumStarted - relayStarted) / 1000).toFixed(1)} s, vacuumed and analyzed ` +
        `in ${((performance.now() - vacuumStarted) / 1000).toFixed(1)} s`,
    );
    results.push(await measure(server, world, merchantId, size));
    await stopAll(server.processes);
  }
  await report(results);
} finally {
  await stopAll();
  await database.close();
}
process.exit(0);

// ——— measuring ———

async function measure(server: Target, world: World, merchantId: string, size: number): Promise<Measured> {
  const headers = await freshHeaders(server.base, world);
  const get = (path: string) => call(server.base, 'GET', path, headers);
  const list = `/payments?id=${merchantId}&limit=10`;
  const { meta } = await get(list);
  const deepOffset = Math.max(0, (meta as { total: number }).total - 20);
  // An item near the end of the history, and the one after it: what a page starting after it begins with.
  const deep = (await get(`${list}&offset=${deepOffset}`)).data as { id: string }[];
  const cursor = deep[0]!.id;
  const cursorPage = `${list}&startingAfter=${cursor}`;
  const cursorSupport = await cursorSupportOf(server.base, headers, cursorPage, deep[1]?.id);
  // A window of the newest seeded day: the history ends four days ago and runs back a payment a minute, so eight
  // hours of it are there from the smallest size on.
  const windowEnd = Date.now() - 4 * 24 * HOUR_MS - 2 * HOUR_MS;
  const created = `createdGte=${new Date(windowEnd - 8 * HOUR_MS).toISOString()}&createdLte=${new Date(windowEnd).toISOString()}`;
  const filtered = (name: string, query: string): Call => ({
    name: `GET /payments first page, ${name}`,
    method: 'GET',
    path: () => `${list}&${query}`,
    status: 200,
  });
  const calls: Call[] = [
    { name: 'GET /merchants/{id}/balance', method: 'GET', path: () => `/merchants/${merchantId}/balance`, status: 200 },
    { name: 'GET /payments first page', method: 'GET', path: () => list, status: 200 },
    filtered('last4', `last4=${BENCH_CARD.slice(-4)}`),
    filtered('customerEmail', `customerEmail=${encodeURIComponent(BENCH_CUSTOMER_EMAIL)}`),
    filtered('amount range', 'amountGte=1000&amountLte=5000'),
    filtered('created range', created),
    { name: "GET /payments first page, the account's", method: 'GET', path: () => '/payments?limit=10', status: 200 },
    {
      name: 'GET /payments deep page (cursor)',
      method: 'GET',
      path: () => cursorPage,
      status: 200,
      unavailable: cursorSupport,
    },
    {
      name: 'GET /merchants/{id}/balance-transactions',
      method: 'GET',
      path: () => `/merchants/${merchantId}/balance-transactions?limit=10`,
      status: 200,
    },
    {
      name: 'POST /payments tokenv3',
      method: 'POST',
      path: () => '/payments',
      body: () => world.paymentBody(randomUUID()),
      status: 201,
    },
    {
      name: 'POST /payouts 1.00',
      method: 'POST',
      path: () => '/payouts',
      body: () =>
        JSON.stringify({
          data: { type: 'payouts', requestId: randomUUID(), attributes: { merchantId, amount: '100' } },
        }),
      status: 201,
    },
    // Last: at a million payments it reads past a million rows a request, which leaves the cache cold for the
    // calls after it.
    {
      name: 'GET /payments deep page (offset)',
      method: 'GET',
      path: () => `${list}&offset=${deepOffset}`,
      status: 200,
    },
  ];
  // The console's pages, after the API's calls and before the offset page (which leaves the cache cold).
  const consolePages = await consoleCalls(server.base, world, headers, {
    paymentId: deep[1]?.id ?? cursor,
    merchantId,
  });
  calls.splice(calls.length - 1, 0, ...consolePages);
  const figures: Record<string, Figures> = {};
  for (const timed of calls) {
    const done = timed.unavailable
      ? { unavailable: timed.unavailable }
      : await sample(server.base, timed.headers ?? headers, timed);
    figures[timed.name] = done;
    console.log(`${size.toLocaleString('en-US').padStart(9)}  ${timed.name.padEnd(42)} ${cell(done)}`);
  }
  const exportEnd = Date.now() - 4 * 24 * HOUR_MS;
  const exported = await timedExport(
    server.base,
    consolePages[0]!.headers!,
    new Date(exportEnd - (EXPORT_DAYS - 1) * 24 * HOUR_MS).toISOString().slice(0, 10),
    new Date(exportEnd).toISOString().slice(0, 10),
  );
  console.log(
    `${size.toLocaleString('en-US').padStart(9)}  console CSV export: ${exported.rows} rows in ${exported.seconds} s`,
  );
  return { size, calls: figures, tables: await tableSizes(), export: exported };
}

/**
 * The console's pages as calls: an account session (the world's key) for its pages, an operator session (the
 * admin token) for the operator's; the ids they show are read from the API first.
 */
async function consoleCalls(
  base: string,
  world: World,
  headers: Record<string, string>,
  known: { paymentId: string; merchantId: string },
): Promise<Call[]> {
  const first = async (path: string) =>
    ((await call(base, 'GET', path, headers)).data as unknown as { id: string }[])[0]!.id;
  const ids = {
    ...known,
    payoutId: await first('/payouts?limit=1'),
    eventId: await first('/events?limit=1'),
    requestId: await first('/requests?limit=1'),
  };
  const [account, operator] = await Promise.all([
    consoleSession(base, world.credentials.apiKey),
    consoleSession(base, ADMIN_TOKEN),
  ]);
  const page =
    (session: Record<string, string>) =>
    ([name, path]: [string, string]): Call => ({
      name,
      method: 'GET',
      path: () => path,
      status: 200,
      headers: session,
    });
  return [
    ...accountPages(ids, BENCH_CARD, BENCH_CUSTOMER_EMAIL).map(page(account)),
    ...OPERATOR_PAGES.map(page(operator)),
  ];
}

/**
 * A payment of the bench card by a customer's vault token (its customer `BENCH_CUSTOMER_EMAIL`), made through the
 * API with a key: the template of the history, so `customerEmail` finds every seeded payment.
 */
async function customerPayment(base: string, world: World): Promise<string> {
  const { headers } = world.credentials;
  const customer = await call(base, 'POST', '/customers', headers, {
    data: { type: 'customers', attributes: { name: 'Bench Buyer', email: BENCH_CUSTOMER_EMAIL } },
  });
  const token = await call(base, 'POST', '/tokens', headers, {
    data: {
      type: 'tokens',
      attributes: {
        tokenType: 'card',
        customerId: customer.data.id,
        card: { holder: 'Bench Buyer', number: BENCH_CARD, expiry: '1239', code: '123' },
      },
    },
  });
  const body = JSON.parse(world.paymentBody(randomUUID()));
  body.data.attributes.token.tokenId = token.data.id;
  return (await call(base, 'POST', '/payments', headers, body)).data.id as string;
}

/**
 * Pays out what the history made available, but for what the timed payouts take, as a merchant paid along the way
 * would have: its balance transactions are carried, so a timed payout reads only what is new since, and the
 * statistics `vacuumAnalyze` gathers next are those of a paid-out history (a first payout carrying every row of a
 * million payments is work in proportion to what it writes, and not an everyday call).
 */
async function payOutHistory(server: Target, world: World, merchantId: string) {
  const headers = await freshHeaders(server.base, world);
  const { data } = await call(server.base, 'GET', `/merchants/${merchantId}/balance`, headers);
  const keep = (WARM_UP_SAMPLES + SAMPLES) * 100;
  // In payouts of at most the API's largest amount: the first carries every balance transaction, the rest what it
  // carried forward.
  for (let left = Number(data.attributes.available) - keep; left > 0; left -= MAX_PAYOUT_CENTS) {
    const amount = Math.min(left, MAX_PAYOUT_CENTS);
    const body = {
      data: { type: 'payouts', requestId: randomUUID(), attributes: { merchantId, amount: String(amount) } },
    };
    // The first carries the whole history, which outlives the request's deadline: its 503 is retried with the same
    // requestId, as a client does, until the payout made meanwhile is answered.
    for (;;) {
      const response = await fetch(`${server.base}/payouts`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.status === 201) break;
      if (response.status !== 503 && response.status !== 409) {
        throw new Error(`POST /payouts failed: ${response.status} ${await response.text()}`);
      }
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/**
 * Why the cursor page cannot be timed, or undefined when it can: 400 (the parameter refused) says the server has
 * no cursor pagination, and a page that does not begin with the item after the cursor says it ignored it.
 */
async function cursorSupportOf(
  base: string,
  headers: Record<string, string>,
  path: string,
  expectedFirst: string | undefined,
): Promise<string | undefined> {
  const response = await fetch(`${base}${path}`, { headers });
  const document = (await response.json()) as { data?: { id: string }[] };
  if (response.status === 400) return 'n/a (no cursor support)';
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(document)}`);
  return document.data?.[0]?.id === expectedFirst ? undefined : 'n/a (cursor ignored)';
}

/** The call made WARM_UP_SAMPLES times, then timed SAMPLES times one after another: p50, p99 and wrong answers. */
async function sample(base: string, headers: Record<string, string>, timed: Call): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  for (let index = 0; index < WARM_UP_SAMPLES + SAMPLES; index += 1) {
    const body = timed.body?.();
    const started = performance.now();
    const response = await fetch(`${base}${timed.path()}`, {
      method: timed.method,
      headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
      body,
    });
    const text = await response.text();
    const latency = performance.now() - started;
    if (index < WARM_UP_SAMPLES) continue;
    latencies.push(latency);
    if (response.status !== timed.status) {
      errors += 1;
      if (errors === 1) console.warn(`${timed.name}: ${response.status} ${text.slice(0, 300)}`);
    }
  }
  return { p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), errors };
}

/** The `fraction` percentile of the latencies (as bench/window.ts takes it), to a hundredth of a millisecond. */
function percentile(latencies: number[], fraction: number): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return Number((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0).toFixed(2));
}

/** A new app token (the first may have expired while a large history grew), with the world's other headers. */
async function freshHeaders(base: string, world: World) {
  const { appToken } = (
    await call(
      base,
      'POST',
      '/auth/token',
      { 'x-api-key': world.credentials.apiKey },
      {
        data: { type: 'auth', attributes: { appKey: world.credentials.appKey } },
      },
    )
  ).data.attributes as { appToken: string };
  return { ...world.credentials.headers, authorization: `Bearer ${appToken}` };
}

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
    body: body ? JSON.stringify(body) : undefined,
  });
  const document = (await response.json()) as { data: Record<string, unknown>; meta?: unknown };
  if (!response.ok) throw new Error(`${method} ${path} failed: ${JSON.stringify(document)}`);
  return document as { data: Record<string, any>; meta?: unknown };
}

// ——— the database ———

/**
 * Waits until the platform's outbox relay has taken every seeded event off its queue, as it would have while the
 * payments were made one by one: a measurement with two million events queued would time the relay's catching up.
 * Written as SQL: the bench watches a queue no platform function reports.
 */
async function relayCaughtUp(deadline = Date.now() + 30 * 60_000) {
  const { sql } = database;
  for (;;) {
    const [row] = await sql`select exists (select 1 from unrelayed_events) as queued`;
    if (!row?.queued) return;
    if (Date.now() > deadline) throw new Error('the outbox relay did not catch up in 30 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Each table's rows and total size with its indexes and TOAST: PostgreSQL's own figures, read by SQL. */
async function tableSizes(): Promise<Measured['tables']> {
  const { sql } = database;
  const sizes: Measured['tables'] = {};
  for (const table of TABLES) {
    const [row] = await sql`
      select (select count(*) from ${sql(table)})::bigint as rows, pg_total_relation_size(${table}::regclass) as bytes`;
    sizes[table] = { rows: Number(row!.rows), mb: Number((Number(row!.bytes) / 1024 / 1024).toFixed(1)) };
  }
  return sizes;
}

// ——— report ———

function cell(figures: Figures | undefined) {
  if (!figures) return '';
  return 'unavailable' in figures ? figures.unavailable : `${figures.p50Ms} / ${figures.p99Ms}`;
}

/** A call's p50 at the largest size over its p50 at the smallest; `target` says whether it is held to 1.5. */
function ratioCell(name: string, rows: Measured[]) {
  const smallest = rows[0]?.calls[name];
  const largest = rows[rows.length - 1]?.calls[name];
  if (!smallest || !largest || 'unavailable' in smallest || 'unavailable' in largest) return 'n/a';
  const ratio = largest.p50Ms / smallest.p50Ms;
  if (name.includes('(offset)')) return `${ratio.toFixed(2)}× (not held to 1.5×)`;
  return `${ratio.toFixed(2)}× ${ratio <= 1.5 ? '✓' : '✗ over 1.5×'}`;
}

async function report(rows: Measured[]) {
  const sizes = rows.map((row) => row.size.toLocaleString('en-US'));
  const names = Object.keys(rows[0]?.calls ?? {});
  const header =
    `One merchant's card history, ${SAMPLES} sequential requests per call and size (after ${WARM_UP_SAMPLES} not ` +
    'counted), the platform in one process (`node dist/start.js`), loopback, PostgreSQL and Redis shared';
  const calls = [
    `| call | ${sizes.map((size) => `${size}: p50 / p99 ms`).join(' | ')} | p50 ${sizes.at(-1)} ÷ p50 ${sizes[0]} |`,
    `|---|${sizes.map(() => '---:').join('|')}|---|`,
    ...names.map(
      (name) => `| ${name} | ${rows.map((row) => cell(row.calls[name])).join(' | ')} | ${ratioCell(name, rows)} |`,
    ),
  ].join('\n');
  const errors = rows.flatMap((row) =>
    Object.entries(row.calls).flatMap(([name, figures]) =>
      'errors' in figures && figures.errors > 0 ? [`${name} at ${row.size}: ${figures.errors} errors`] : [],
    ),
  );
  const tables = [
    `| table | ${sizes.map((size) => `${size}: rows`).join(' | ')} | ${sizes.map((size) => `${size}: MB`).join(' | ')} |`,
    `|---|${[...sizes, ...sizes].map(() => '---:').join('|')}|`,
    ...TABLES.map(
      (table) =>
        `| ${table} | ${rows.map((row) => row.tables[table]?.rows.toLocaleString('en-US')).join(' | ')} | ` +
        `${rows.map((row) => row.tables[table]?.mb).join(' | ')} |`,
    ),
  ].join('\n');
  const seeded = seeding
    .map(
      (step) =>
        `${step.size.toLocaleString('en-US')}: recorded in ${step.recordSeconds.toFixed(1)} s, settled in ` +
        `${step.settleSeconds.toFixed(1)} s`,
    )
    .join('; ');
  const exports = rows
    .map(
      (row) =>
        `${row.size.toLocaleString('en-US')}: ${row.export?.rows.toLocaleString('en-US')} rows in ${row.export?.seconds} s`,
    )
    .join('; ');
  const text = [
    header,
    calls,
    `The console's CSV export of ${EXPORT_DAYS} days of the history (a payment a minute), read to its end: ${exports}.`,
    errors.length > 0 ? `Errors: ${errors.join('; ')}.` : 'No errors.',
    tables,
    `Seeding (each size grown from the previous): ${seeded}.`,
  ].join('\n\n');
  console.log(`\n${text}\n`);
  const stamp = resultStamp('history-');
  await mkdir('bench/results', { recursive: true });
  const json = { date: new Date().toISOString(), samples: SAMPLES, warmUpSamples: WARM_UP_SAMPLES, seeding, rows };
  await writeFile(join('bench/results', `history-${stamp}.json`), `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(join('bench/results', `history-${stamp}.md`), `# npm run bench:history, ${stamp}\n\n${text}\n`);
  console.log(`written to bench/results/history-${stamp}.json and .md`);
}
