import { createPrivatePostgres } from '@pps/shared/testing';
import postgres from 'postgres';

/** Where a bench measures: the server's URL (no database), and its postmaster's process id when it is the bench's own. */
export type BenchPostgres = { url: string; postmaster?: number; stop: () => Promise<void> };

/**
 * A PostgreSQL cluster of the bench's own (initdb in a temporary directory, its own port), as durable as a default
 * install (fsync, synchronous commits, full-page writes: a commit's WAL flush is part of what group commit shares),
 * with the machine's cluster's shared buffers and autovacuum off as there (each bench vacuums before it measures),
 * and pg_stat_statements loaded so each load's statements are counted, the ones triggers run included. Only its own
 * processes count as PostgreSQL's CPU. BENCH_POSTGRES_URL names a server to use instead (its processes are found by
 * name, and its statements counted only if it loads pg_stat_statements).
 */
export async function benchPostgres(): Promise<BenchPostgres> {
  const given = process.env.BENCH_POSTGRES_URL;
  if (given) return { url: given, stop: async () => {} };
  const cluster = await createPrivatePostgres([
    'max_connections=300',
    'shared_buffers=128MB',
    'autovacuum=off',
    'shared_preload_libraries=pg_stat_statements',
    'pg_stat_statements.track=all',
    'pg_stat_statements.max=10000',
  ]);
  await cluster.start();
  return { url: cluster.url('').replace(/\/$/, ''), postmaster: await cluster.pid(), stop: cluster.destroy };
}

/** What PostgreSQL did for one database so far: WAL bytes (the cluster's), commits, and statements run. */
export type PostgresSample = { wal: number; commits: number; statements: number; nested: number };

/** A statement's calls, execution time (ms), rows and WAL bytes since the last reset, and its text. */
export type StatementTotals = { calls: number; ms: number; rows: number; wal: number; query: string };

/** A statement of a load: its calls, execution time and WAL bytes per request, rows per call, and its text. */
export type TopStatement = {
  callsPerRequest: number;
  msPerRequest: number;
  rowsPerCall: number;
  walPerRequest: number;
  query: string;
};

export const perRequestStatements = (totals: StatementTotals[], requests: number): TopStatement[] =>
  totals.map((statement) => ({
    callsPerRequest: Number((statement.calls / requests).toFixed(3)),
    msPerRequest: Number((statement.ms / requests).toFixed(4)),
    rowsPerCall: Number((statement.rows / Math.max(1, statement.calls)).toFixed(1)),
    walPerRequest: Math.round(statement.wal / requests),
    query: statement.query,
  }));

/**
 * Reads what a load cost PostgreSQL besides CPU, on one connection of its own (to the `postgres` database, whose
 * own statements are not counted): the WAL position (`pg_current_wal_lsn`; one server is loaded at a time, so the
 * cluster's WAL is its), the database's commits (`pg_stat_database.xact_commit`: each backend reports them at most a
 * second late, the same lag at both ends of a steady load's window) and its statements (pg_stat_statements, when
 * loaded: those the clients sent, and those run inside them by triggers and functions).
 */
export async function postgresMonitor(serverUrl: string) {
  const sql = postgres(`${serverUrl}/postgres`, { max: 1, onnotice: () => {} });
  const [{ loaded } = { loaded: false }] = await sql<{ loaded: boolean }[]>`
    select 'pg_stat_statements' = any (string_to_array(current_setting('shared_preload_libraries'), ',')) as loaded`;
  if (loaded) await sql`create extension if not exists pg_stat_statements`;
  const dbid = (database: string) => sql`(select oid from pg_database where datname = ${database})`;
  return {
    /** Whether statements are counted. */
    countsStatements: loaded,
    async sample(database: string): Promise<PostgresSample> {
      const [row] = await sql<{ wal: string; commits: string }[]>`
        select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as wal,
          (select xact_commit from pg_stat_database where datname = ${database})::text as commits`;
      const [statements] = loaded
        ? await sql<{ top: string; nested: string }[]>`
            select coalesce(sum(calls) filter (where toplevel), 0)::text as top,
              coalesce(sum(calls) filter (where not toplevel), 0)::text as nested
            from pg_stat_statements where dbid = ${dbid(database)}`
        : [{ top: '0', nested: '0' }];
      return {
        wal: Number(row?.wal),
        commits: Number(row?.commits),
        statements: Number(statements?.top),
        nested: Number(statements?.nested),
      };
    },
    /** Forgets the statements counted so far (before a load, so `topStatements` after it is that load's). */
    async resetStatements() {
      if (loaded) await sql`select pg_stat_statements_reset()`;
    },
    /** The statements that took the database's time since the last reset, the costliest first. */
    async topStatements(database: string, limit = 12): Promise<StatementTotals[]> {
      if (!loaded) return [];
      const rows = await sql<
        { calls: string; ms: number; rows: string; wal: string; toplevel: boolean; query: string }[]
      >`
        select calls::text, total_exec_time as ms, rows::text, wal_bytes::text as wal, toplevel,
          left(regexp_replace(query, '\\s+', ' ', 'g'), 160) as query
        from pg_stat_statements where dbid = ${dbid(database)}
        order by total_exec_time desc limit ${limit}`;
      return rows.map((row) => ({
        calls: Number(row.calls),
        ms: row.ms,
        rows: Number(row.rows),
        wal: Number(row.wal),
        query: `${row.toplevel ? '' : '(in a trigger) '}${row.query}`,
      }));
    },
    end: () => sql.end({ timeout: 1 }),
  };
}

export type PostgresMonitor = Awaited<ReturnType<typeof postgresMonitor>>;
