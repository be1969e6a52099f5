import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { createDatabaseFromTemplate } from '../testing';
import { createDatabase, type Database, pipelinedTransaction } from './client';
import { rowMapper, send, sendTogether, tableCodec } from './prepared-statements';
import { merchants } from './schema';

let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  const created = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  drop = created.drop;
  database = createDatabase(created.url, { max: 2 });
  await database.sql`create table parent (id int primary key, name text not null)`;
  await database.sql`create table child (id int primary key, parent_id int not null references parent (id), note text)`;
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

const rows = async () => ({
  parents: await database.sql`select id, name from parent order by id`,
  children: await database.sql`select id, parent_id, note from child order by id`,
});

describe('sendTogether', () => {
  it('writes every part in one statement, parameters renumbered, a row referencing one inserted beside it', async () => {
    await sendTogether(database.db, [
      { text: 'insert into child (id, parent_id, note) values ($1, $2, $3)', params: [10, 1, 'first'] },
      { text: 'insert into parent (id, name) values ($1, $2)', params: [1, 'one'] },
      { text: 'insert into child (id, parent_id, note) values ($1, $2, $3)', params: [11, 1, null] },
    ]);
    expect(await rows()).toEqual({
      parents: [{ id: 1, name: 'one' }],
      children: [
        { id: 10, parent_id: 1, note: 'first' },
        { id: 11, parent_id: 1, note: null },
      ],
    });
  });

  it('writes nothing when one part fails (one statement), and the COMMIT behind it rolls back', async () => {
    await expect(
      pipelinedTransaction(database.db, async (tx) => {
        await send(tx, 'insert into parent (id, name) values ($1, $2)', [2, 'two']);
        const together = sendTogether(tx, [
          { text: 'insert into child (id, parent_id) values ($1, $2)', params: [20, 2] },
          { text: 'insert into child (id, parent_id) values ($1, $2)', params: [21, 404] },
        ]);
        return { result: 'never', pending: [together] };
      }),
    ).rejects.toMatchObject({ code: '23503' });
    expect(await rows()).toMatchObject({ parents: [{ id: 1 }], children: [{ id: 10 }, { id: 11 }] });
  });

  it('refuses a part that is not a single write, or whose parameters do not match its placeholders', () => {
    expect(() => sendTogether(database.db, [{ text: 'select 1', params: [] }])).toThrow('not a single write');
    expect(() =>
      sendTogether(database.db, [{ text: 'insert into parent (id, name) values ($1, $2)', params: [3] }]),
    ).toThrow('$2 with 1 parameters');
  });
});

describe('tableCodec', () => {
  it('reads a row by column name as drizzle would (timestamps as Dates), and refuses a row missing NOT NULL columns', () => {
    const codec = tableCodec(merchants);
    const read = codec.read({ id: 'mer_1', created_at: '2026-11-23 10:00:00.123+00', features: { ach: true } });
    expect(read).toEqual({ id: 'mer_1', createdAt: new Date('2026-11-23T10:00:00.123Z'), features: { ach: true } });
    expect(() => codec.row({ id: 'mer_1' } as never)).toThrow('NOT NULL');
  });
});

describe('rowMapper', () => {
  it('reads columns by their names as drizzle would, and computed values by their snake_case names, checked', () => {
    const read = rowMapper({ id: merchants.id, createdAt: merchants.createdAt, feeCount: z.number() });
    expect(read({ id: 'mer_1', created_at: '2026-11-23 10:00:00.123+00', fee_count: 3 })).toEqual({
      id: 'mer_1',
      createdAt: new Date('2026-11-23T10:00:00.123Z'),
      feeCount: 3,
    });
    expect(() => read({ id: 'mer_1', created_at: null, fee_count: '3' })).toThrow();
  });

  it('picks a table’s columns for a select list and reads exactly those', () => {
    const picked = tableCodec(merchants).pick(['id', 'accountId']);
    expect(picked.columns).toBe('"id", "account_id"');
    expect(picked.read({ id: 'mer_1', account_id: 'acc_1' })).toEqual({ id: 'mer_1', accountId: 'acc_1' });
  });
});
