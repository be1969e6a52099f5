import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabaseFromTemplate } from '../testing';
import { Batcher, type BatcherOptions } from './batcher';
import { createDatabase, type Database, isDatabaseUnavailable, pipelinedTransaction } from './client';
import { send, sendTogether } from './prepared-statements';
import { texts } from './unnest';

/**
 * Batcher (group commit) against a real PostgreSQL: batches formed by arrival, each one transaction and one statement, a
 * value given only once its row is committed, a refused row failing alone, and a database that is away failing the
 * batch without a retry.
 */
let database: Database;
let observer: postgres.Sql;
let drop: () => Promise<void>;

beforeAll(async () => {
  const created = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  drop = created.drop;
  database = createDatabase(created.url, { max: 4 });
  observer = postgres(created.url, { max: 1, onnotice: () => {} });
  await observer`create table group_commit_rows (id int primary key, amount int not null check (amount >= 0))`;
});
afterAll(async () => {
  await observer?.end();
  await database?.close();
  await drop?.();
});

type Row = { id: number; amount: number };

/** A committer inserting its batch's rows in one statement, recording each batch's ids. */
function rowsCommitter(options: Partial<BatcherOptions> = {}) {
  const batches: number[][] = [];
  const committer = new Batcher<Row, number>(
    (rows) => {
      batches.push(rows.map((row) => row.id));
      return pipelinedTransaction(database.db, async (tx) => ({
        result: rows.map((row) => row.id),
        pending: [
          sendTogether(tx, [
            {
              text: `insert into group_commit_rows (id, amount)
                select id::int, amount::int from unnest($1::text[], $2::text[]) as r(id, amount)`,
              params: [texts(rows.map((row) => row.id)), texts(rows.map((row) => row.amount))],
            },
          ]),
        ],
      }));
    },
    { maxBatch: 64, maxWaitMs: 0, maxInFlight: 1, ...options },
  );
  return { committer, batches };
}

const committedIds = async (from: number, to: number) =>
  (
    await observer<{ id: number }[]>`select id from group_commit_rows where id between ${from} and ${to} order by id`
  ).map((row) => row.id);

describe('Batcher', () => {
  it('writes what arrives together as one batch, and answers each only once its row is committed', async () => {
    const { committer, batches } = rowsCommitter();
    const ids = Array.from({ length: 10 }, (_, index) => 100 + index);
    const answered = await Promise.all(
      ids.map(async (id) => {
        const value = await committer.submit({ id, amount: 1 });
        // Seen from another connection the moment the caller has its answer: committed, not just written.
        const [row] = await observer`select id from group_commit_rows where id = ${id}`;
        return { value, seen: row?.id };
      }),
    );
    expect(answered).toEqual(ids.map((id) => ({ value: id, seen: id })));
    expect(batches).toEqual([ids]);
  });

  it('cuts batches at maxBatch, and sends what gathered during a commit when it ends', async () => {
    const { committer, batches } = rowsCommitter({ maxBatch: 4, maxInFlight: 1 });
    const ids = Array.from({ length: 10 }, (_, index) => 200 + index);
    await Promise.all(ids.map((id) => committer.submit({ id, amount: 1 })));
    expect(batches).toEqual([ids.slice(0, 4), ids.slice(4, 8), ids.slice(8)]);
    expect(await committedIds(200, 299)).toEqual(ids);
  });

  it('waits, up to maxWaitMs, for an item known to be on its way; never when none is', async () => {
    const { committer, batches } = rowsCommitter({ maxWaitMs: 1000 });
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Alone: it goes at the end of the turn, whatever maxWaitMs says.
    const started = performance.now();
    await committer.submit({ id: 300, amount: 1 });
    expect(performance.now() - started).toBeLessThan(500);
    await pause(5); // its batch's slot free again (a batch's end sends what gathered at once)
    // With another on its way (being checked, say: submitted once that is done), the batch waits for it, and goes
    // the moment it comes.
    const second = committer.expecting(() => pause(20)).then(() => committer.submit({ id: 302, amount: 1 }));
    const first = committer.submit({ id: 301, amount: 1 });
    const waited = performance.now();
    await Promise.all([first, second]);
    expect(performance.now() - waited).toBeLessThan(500);
    // An item on its way that never comes holds the batch up to maxWaitMs at most.
    const { committer: capped, batches: cappedBatches } = rowsCommitter({ maxWaitMs: 50 });
    const never = capped.expecting(() => pause(2000));
    const capStarted = performance.now();
    await capped.submit({ id: 303, amount: 1 });
    expect(performance.now() - capStarted).toBeGreaterThanOrEqual(45);
    expect(performance.now() - capStarted).toBeLessThan(1500);
    await never;
    expect([...batches, ...cappedBatches]).toEqual([[300], [301, 302], [303]]);
  });

  it("fails a refused row alone: its neighbours' rows are committed", async () => {
    const { committer, batches } = rowsCommitter();
    const rows = [400, 401, 402, 403, 404].map((id) => ({ id, amount: id === 402 ? -1 : 1 }));
    const settled = await Promise.allSettled(rows.map((row) => committer.submit(row)));
    expect(settled.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const refused = settled[2];
    expect(refused?.status === 'rejected' && (refused.reason as { code?: string }).code).toBe('23514');
    // The batch once, rolled back whole; then each row alone.
    expect(batches).toEqual([[400, 401, 402, 403, 404], [400], [401], [402], [403], [404]]);
    expect(await committedIds(400, 499)).toEqual([400, 401, 403, 404]);
  });

  it('fails every item of a batch when the database is away, without trying them one by one', async () => {
    const away = createDatabase('postgres://postgres@127.0.0.1:1/none', { max: 1, connectTimeoutMs: 500 });
    let runs = 0;
    const committer = new Batcher<number, number>(
      async (items) => {
        runs += 1;
        return pipelinedTransaction(away.db, async (tx) => ({
          result: items,
          pending: [send(tx, 'select 1', [])],
        }));
      },
      { maxBatch: 64, maxWaitMs: 0, maxInFlight: 1 },
    );
    const settled = await Promise.allSettled([1, 2, 3].map((item) => committer.submit(item)));
    expect(settled.every((result) => result.status === 'rejected' && isDatabaseUnavailable(result.reason))).toBe(true);
    expect(runs).toBe(1);
    await away.close();
  });
});
