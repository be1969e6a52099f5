import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabaseFromTemplate } from '../testing';
import { createDatabase, type Database } from './client';

/**
 * The read pool (`Database.readDb`, DATABASE_READ_POOL_SIZE): connections of their own, read-only, so a GET never
 * queues behind writes and can never write.
 */
let url: string;
let drop: () => Promise<void>;
let database: Database;

beforeAll(async () => {
  ({ url, drop } = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId')));
  database = createDatabase(url, { max: 1, readMax: 1 });
});
afterAll(async () => {
  await database.close();
  await drop();
});

describe('the read pool', () => {
  it('reads on sessions of its own, apart from the main pool', async () => {
    const [main] = await database.db.execute<{ pid: number; name: string }>(
      sql`select pg_backend_pid() as pid, current_setting('application_name') as name`,
    );
    // The main pool's one connection is held by this transaction while the read pool still answers.
    const read = await database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      return database.readDb.execute<{ pid: number; name: string }>(
        sql`select pg_backend_pid() as pid, current_setting('application_name') as name`,
      );
    });
    expect(main).toMatchObject({ name: 'pps' });
    expect(read[0]).toMatchObject({ name: 'pps-read' });
    expect(read[0]!.pid).not.toBe(main!.pid);
  });

  it('refuses a write, so a GET that wrote would fail loudly', async () => {
    await expect(database.readDb.execute(sql`update accounts set name = name`)).rejects.toThrow();
    const cause = await database.readDb.execute(sql`update accounts set name = name`).catch((error) => error.cause);
    expect(cause?.code).toBe('25006'); // read_only_sql_transaction
  });

  it('is the main pool itself when none is asked for', async () => {
    const shared = createDatabase(url, { max: 1 });
    expect(shared.readDb).toBe(shared.db);
    await shared.close();
  });
});
