import { sql as drizzleSql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabaseFromTemplate } from '../testing';
import { createDatabase, type Database, isDatabaseUnavailable, pipelinedTransaction } from './client';

/**
 * A connection whose server session ends under it (a restart, a failover, an idle-session kill), as postgres.js
 * meets it with the project's patch (patches/postgres+3.4.9.patch): every statement on it is rejected with an
 * error the caller can catch, the process never sees an uncaught one, and the pool serves again at once. Each case
 * ends its own sessions with pg_terminate_backend, the server itself keeps running. Unpatched, the first two cases
 * crash the test process (`Cannot read properties of null (reading 'write')`) and the third hangs.
 */
let database: Database;
let killer: postgres.Sql;
let drop: () => Promise<void>;
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);

beforeAll(async () => {
  const created = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  drop = created.drop;
  database = createDatabase(created.url, { max: 2 });
  killer = postgres(created.url, { max: 1, onnotice: () => {} });
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
});
afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
  await killer?.end();
  await database?.close();
  await drop?.();
});

const terminate = (pid: number) => killer`select pg_terminate_backend(${pid})`;
const pidOf = async (sql: postgres.Sql | postgres.ReservedSql | postgres.TransactionSql) =>
  (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]?.pid ?? 0;
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { code?: string }) => error.code,
  );
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('a connection whose session ends', () => {
  it('reserved: every later statement on it is rejected, release is harmless, the pool serves again', async () => {
    const reserved = await database.sql.reserve();
    await terminate(await pidOf(reserved));
    await settle();
    expect(await codeOf(reserved`select 1`)).toBe('CONNECTION_CLOSED');
    expect(await codeOf(reserved`select 2`)).toBe('CONNECTION_CLOSED');
    reserved.release();
    await settle();

    const again = await database.sql.reserve();
    expect((await again`select 3 as n`)[0]?.n).toBe(3);
    again.release();
    expect((await database.sql`select 4 as n`)[0]?.n).toBe(4);
    expect(uncaught).toEqual([]);
  });

  it('in a transaction: the callback’s statements and its rollback are rejected, the pool serves again', async () => {
    const outcome = database.sql
      .begin(async (tx) => {
        await terminate(await pidOf(tx));
        await settle();
        await tx`select 1`;
      })
      .then(
        () => 'committed',
        (error: { code?: string }) => error.code,
      );
    expect(['CONNECTION_CLOSED', '57P01']).toContain(await outcome);
    await settle();
    const rows = await Promise.all([1, 2, 3, 4].map((n) => database.sql`select ${n}::int as n`));
    expect(rows.map((row) => row[0]?.n)).toEqual([1, 2, 3, 4]);
    expect(uncaught).toEqual([]);
  });

  it('in a pipelined transaction: the failure says the database is unavailable, nothing waits for ever', async () => {
    const failure = await pipelinedTransaction(database.db, async (tx) => {
      const [row] = await tx.execute<{ pid: number }>(drizzleSql`select pg_backend_pid() as pid`);
      await terminate(row?.pid ?? 0);
      await settle();
      await tx.execute(drizzleSql`select 1`);
      return { result: 'committed' };
    }).catch((error: unknown) => error);
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect((await database.sql`select 5 as n`)[0]?.n).toBe(5);
    expect(uncaught).toEqual([]);
  });
});

describe('isDatabaseUnavailable', () => {
  it('knows the driver’s, the socket’s and the server’s ways of saying it, through wrappers', () => {
    const wrapped = (code: string) =>
      Object.assign(new Error('Failed query'), { cause: Object.assign(new Error(code), { code }) });
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'CONNECTION_CLOSED',
      'CONNECT_TIMEOUT',
      '57P01',
      '57P03',
      '08006',
    ]) {
      expect(isDatabaseUnavailable(wrapped(code)), code).toBe(true);
    }
    const refused = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    expect(isDatabaseUnavailable(new AggregateError([refused, refused]))).toBe(true);
    for (const code of ['23505', '22P02', '40001', 'ERR_SOMETHING']) {
      expect(isDatabaseUnavailable(wrapped(code)), code).toBe(false);
    }
    expect(isDatabaseUnavailable(new Error('plain'))).toBe(false);
  });
});
