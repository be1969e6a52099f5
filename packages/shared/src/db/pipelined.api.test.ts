import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabaseFromTemplate } from '../testing';
import { createDatabase, type Database, pipelinedTransaction } from './client';
import { send } from './prepared-statements';

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
  send(tx, 'insert into pipelined (id) values ($1)', [id]);

describe('pipelinedTransaction', () => {
  it('commits what fn wrote and what it left pending', async () => {
    const result = await pipelinedTransaction(database.db, async (tx) => {
      await insert(tx, 1);
      return { result: 'done', pending: [insert(tx, 2), insert(tx, 3)] };
    });
    expect(result).toBe('done');
    expect(await ids()).toEqual([1, 2, 3]);
  });

  it('rolls everything back when a pending write fails, and leaves the connection usable', async () => {
    await expect(
      pipelinedTransaction(database.db, async (tx) => {
        await insert(tx, 4);
        return { result: 'never', pending: [insert(tx, 5), insert(tx, 1)] };
      }),
    ).rejects.toMatchObject({ code: '23505' });
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

  it('refuses a statement with an undefined parameter before queueing it, so the COMMIT never skips a write', async () => {
    await expect(
      pipelinedTransaction(database.db, async (tx) => {
        const sent = insert(tx, 8);
        return { result: 'never', pending: [sent, send(tx, 'insert into pipelined (id) values ($1)', [undefined])] };
      }),
    ).rejects.toThrow('parameter $1 is undefined');
    expect(await ids()).toEqual([1, 2, 3, 7]);
  });

  it('leaves no unhandled rejection behind when a sent statement fails after fn gave up', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      await expect(
        pipelinedTransaction(database.db, async (tx) => {
          insert(tx, 1); // a duplicate, never awaited
          throw new Error('gave up');
        }),
      ).rejects.toThrow('gave up');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
