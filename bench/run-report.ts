import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BatchFigures, batchLine } from './batches';
import type { TopStatement } from './postgres';
import { resultStamp } from './results-stamp';
import { SETTLE_SECONDS } from './window';

/**
 * `npm run bench`'s report (bench/run.ts measures): the speed and cost tables, PostgreSQL's cost per new payment
 * against the bare request's, the database-bound ceiling, the batches and the costliest statements; printed, and
 * written to bench/results/<date>.json and .md.
 */

/** One measured load. */
export type Row = {
  scenario: string;
  mode: 'bare' | 'in-process' | 'in-process, 2 workers' | 'multi-process';
  connections: number;
  requestsPerSecond: number;
  /** Counted from the load's first request (its connections' way in included). */
  fromFirstRequestPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  rssMb: number;
  /** CPU milliseconds per request: the server's processes, PostgreSQL's, and the load generator's (this process). */
  serverCpuMs: number;
  postgresCpuMs: number;
  loadGeneratorCpuMs: number;
  /** What each request cost PostgreSQL besides CPU: WAL bytes, commits, statements sent and statements run inside them. */
  walBytesPerRequest: number;
  commitsPerRequest: number;
  statementsPerRequest: number;
  nestedStatementsPerRequest: number;
  /** The group commits' batches (in one process). */
  batches?: BatchFigures[];
  /** The statements that took PostgreSQL's time. */
  topStatements: TopStatement[];
  vsBaseline?: number;
  vsBaselineFromFirst?: number;
};

/** How the run measured: seconds per load, the two numbers of connections, and which PostgreSQL. */
export type ReportSettings = { seconds: number; connections: number; highConnections: number; postgres: string };

function isNewPayment(row: Row) {
  return row.mode === 'in-process' && row.scenario.startsWith('POST /payments tokenv3 (');
}

/**
 * On a machine whose cores the servers, PostgreSQL and the load generator share, requests per second go as the
 * inverse of the CPU a request costs them all. So the ratio a scenario could reach if the platform's own processes
 * cost what the bare server's do is the bare CPU per request over (the bare server's + this scenario's PostgreSQL
 * and load generator CPU): the part of the gap that the database work alone leaves.
 */
function ceilingNote(rows: Row[], { connections }: ReportSettings): string {
  const bare = rows.find((row) => row.mode === 'bare' && row.connections === connections);
  const payment = rows.find((row) => isNewPayment(row) && row.connections === connections);
  if (!bare || !payment) return '';
  const cost = (row: Row, server: number) => server + row.postgresCpuMs + row.loadGeneratorCpuMs;
  const ceiling = cost(bare, bare.serverCpuMs) / cost(payment, bare.serverCpuMs);
  return (
    `Database-bound ceiling: with its own processes as cheap as the bare server (${bare.serverCpuMs} ms per ` +
    `request), tokenv3 in-process would reach at most ${ceiling.toFixed(2)} of the baseline at ${connections} ` +
    `connections; its PostgreSQL CPU (${payment.postgresCpuMs} ms per payment against ${bare.postgresCpuMs}) keeps it there.`
  );
}

/** PostgreSQL's cost per new payment against the bare request's, at each number of connections. */
function databaseNote(rows: Row[], settings: ReportSettings): string {
  return [settings.connections, settings.highConnections]
    .map((connections) => {
      const bare = rows.find((row) => row.mode === 'bare' && row.connections === connections);
      const payment = rows.find((row) => isNewPayment(row) && row.connections === connections);
      if (!bare || !payment) return '';
      const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '–');
      return (
        `At ${connections} connections a new payment cost PostgreSQL ${payment.postgresCpuMs} ms of CPU ` +
        `(${ratio(payment.postgresCpuMs, bare.postgresCpuMs)}× the bare request's ${bare.postgresCpuMs} ms), ` +
        `${payment.walBytesPerRequest.toLocaleString('en-US')} WAL bytes ` +
        `(${ratio(payment.walBytesPerRequest, bare.walBytesPerRequest)}× its ` +
        `${bare.walBytesPerRequest.toLocaleString('en-US')}), ${payment.commitsPerRequest} commits ` +
        `(${bare.commitsPerRequest}) and ${payment.statementsPerRequest} statements ` +
        `(${bare.statementsPerRequest}).`
      );
    })
    .filter(Boolean)
    .join('\n');
}

/**
 * The cores a scenario kept busy: its server's processes, and everything measured (server, PostgreSQL, load
 * generator), from the CPU per request times the requests per second. A Node process's main thread cannot pass 1
 * (its collector and compiler threads add a little); when the bare row and a platform row keep the machine about as
 * busy, their ratio is their CPU per request's.
 */
function coresBusy(row: Row): string {
  const cores = (ms: number) => ((ms * row.requestsPerSecond) / 1000).toFixed(2);
  return `${cores(row.serverCpuMs)} · ${cores(row.serverCpuMs + row.postgresCpuMs + row.loadGeneratorCpuMs)}`;
}

function table(columns: string[], cells: (row: Row) => (string | number | undefined)[], rows: Row[]) {
  return [
    `| mode | connections | scenario | ${columns.join(' | ')} |`,
    `|---|---:|---|${columns.map(() => '---:|').join('')}`,
    ...rows.map((row) => `| ${row.mode} | ${row.connections} | ${row.scenario} | ${cells(row).join(' | ')} |`),
  ].join('\n');
}

/** The batches and the costliest statements of a new payment at the higher number of connections, and the bare request's. */
function detail(rows: Row[], { highConnections }: ReportSettings): string {
  const payment = rows.find((row) => isNewPayment(row) && row.connections === highConnections);
  const bare = rows.find((row) => row.mode === 'bare' && row.connections === highConnections);
  const sections: string[] = [];
  for (const row of rows.filter(isNewPayment)) {
    if (!row.batches?.length) continue;
    sections.push(
      `Group commit batches, tokenv3 in-process at ${row.connections} connections (share of batches by size):\n\n` +
        row.batches.map((figures) => `- ${batchLine(figures)}`).join('\n'),
    );
  }
  for (const row of [payment, bare]) {
    if (!row?.topStatements.length) continue;
    sections.push(
      `Where PostgreSQL's time went, ${row.mode} ${row.scenario} at ${row.connections} connections:\n\n` +
        '| calls/req | ms/req | rows/call | WAL bytes/req | statement |\n|---:|---:|---:|---:|---|\n' +
        row.topStatements
          .map(
            (statement) =>
              `| ${statement.callsPerRequest} | ${statement.msPerRequest} | ${statement.rowsPerCall} | ` +
              `${statement.walPerRequest.toLocaleString('en-US')} | ` +
              `\`${statement.query.replaceAll('|', '\\|').replaceAll('`', "'")}\` |`,
          )
          .join('\n'),
    );
  }
  return sections.join('\n\n');
}

export async function report(rows: Row[], baselineRuns: Row[], settings: ReportSettings) {
  const header =
    `${settings.seconds} s per scenario, from ${SETTLE_SECONDS} s after its load began (its connections in), ` +
    'loopback, load generator on the same machine; PostgreSQL ' +
    settings.postgres;
  const speed = table(
    [
      'req/s',
      'p50 ms',
      'p99 ms',
      'errors',
      'peak RSS MB',
      'vs baseline',
      'req/s from first request',
      'vs baseline from first',
    ],
    (row) => [
      row.requestsPerSecond,
      row.p50Ms,
      row.p99Ms,
      row.errors,
      row.rssMb,
      row.vsBaseline?.toFixed(2),
      row.fromFirstRequestPerSecond,
      row.vsBaselineFromFirst?.toFixed(2),
    ],
    rows,
  );
  const cost = table(
    [
      'server CPU ms/req',
      'PostgreSQL CPU ms/req',
      'load generator CPU ms/req',
      'WAL bytes/req',
      'commits/req',
      'statements/req',
      'in triggers/req',
      'cores busy: server · all',
    ],
    (row) => [
      row.serverCpuMs,
      row.postgresCpuMs,
      row.loadGeneratorCpuMs,
      row.walBytesPerRequest.toLocaleString('en-US'),
      row.commitsPerRequest,
      row.statementsPerRequest,
      row.nestedStatementsPerRequest,
      coresBusy(row),
    ],
    rows,
  );
  const baselineLine = [settings.connections, settings.highConnections]
    .map((connections) => {
      const runs = baselineRuns.filter((row) => row.connections === connections);
      return `Baseline at ${connections} connections: mean of ${runs.map((row) => `${row.requestsPerSecond}`).join(' (first) and ')} req/s (last).`;
    })
    .join('\n');
  const text = [
    header,
    '## Speed',
    speed,
    '## Cost per request',
    cost,
    baselineLine,
    databaseNote(rows, settings),
    ceilingNote(rows, settings),
    detail(rows, settings),
  ]
    .filter(Boolean)
    .join('\n\n');
  console.log(`\n${text}\n`);
  const stamp = resultStamp('');
  await mkdir('bench/results', { recursive: true });
  const json = {
    date: new Date().toISOString(),
    seconds: settings.seconds,
    settleSeconds: SETTLE_SECONDS,
    connections: settings.connections,
    highConnections: settings.highConnections,
    baselineRuns: baselineRuns.map((row) => ({
      connections: row.connections,
      requestsPerSecond: row.requestsPerSecond,
    })),
    rows,
  };
  await writeFile(join('bench/results', `${stamp}.json`), `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(join('bench/results', `${stamp}.md`), `# npm run bench, ${stamp}\n\n${text}\n`);
  console.log(`written to bench/results/${stamp}.json and .md`);
}
