import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabaseFromTemplate } from '../testing';
import { createDatabase, type Database, pipelinedTransaction } from './client';

/** One connection in the pool, so every transaction reuses the connection the one before left behind. */
let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  const created = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  drop = created.drop;
  database = createDatabase(created.url, { max: 1 });
  await database.sql`create table pipelined (id int primary key)`;
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

const ids = async () =>
  (await database.sql<{ id: number }[]>`select id from pipelined order by id`).map((row) => row.id);
const insert = (tx: Parameters<Parameters<typeof pipelinedTransaction>[1]>[0], id: number) =>
  tx.execute(sql`insert into pipelined (id) values (${id})`);

describe('pipelinedTransaction', () => {
  it('commits what fn wrote and what it left pending', async () => {
    const result = await pipelinedTransaction(database.db, async (tx) => {
      await insert(tx, 1);
      return { result: 'done', pending: Promise.all([insert(tx, 2), insert(tx, 3)]) };
    });
    expect(result).toBe('done');
    expect(await ids()).toEqual([1, 2, 3]);
  });

  it('rolls everything back when a pending write fails, and leaves the connection usable', async () => {
    await expect(
      pipelinedTransaction(database.db, async (tx) => {
        await insert(tx, 4);
        return { result: 'never', pending: Promise.all([insert(tx, 5), insert(tx, 1)]) };
      }),
    ).rejects.toMatchObject({ cause: { code: '23505' } });
    expect(await ids()).toEqual([1, 2, 3]);
  });

  it('rolls back when fn throws after writing', async () => {
    await expect(
      pipelinedTransaction(database.db, async (tx) => {
        await insert(tx, 6);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await ids()).toEqual([1, 2, 3]);
    // The connection is outside any transaction: a plain statement commits on its own.
    await database.sql`insert into pipelined (id) values (7)`;
    expect(await ids()).toEqual([1, 2, 3, 7]);
  });
});
