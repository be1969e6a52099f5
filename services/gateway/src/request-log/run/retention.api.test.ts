import { createDatabase, type Database } from '@pps/shared/db';
import { newId } from '@pps/shared/ids';
import { createDatabaseFromTemplate } from '@pps/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { REQUEST_LOG_RETENTION_DAYS, removeExpiredRequests, requestLogCutoff } from './retention';

/**
 * Request log retention against a real PostgreSQL: only rows older than 30 days go, in batches, the kept totals of
 * `GET /requests` going down with them; a row created just inside the 30 days stays.
 */
let database: Database;
let observer: postgres.Sql;
let drop: () => Promise<void>;

const ACCOUNT = 'acct_request_log_retention';
const DAY = 86_400_000;
const now = new Date();
const before = requestLogCutoff(now);

beforeAll(async () => {
  const created = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  drop = created.drop;
  database = createDatabase(created.url, { max: 2 });
  observer = postgres(created.url, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await observer?.end();
  await database?.close();
  await drop?.();
});
beforeEach(async () => {
  await observer`truncate request_log`;
});

/** `count` requests created at `createdAt`, their ids made then (as the gateway makes them); returns the ids. */
async function seed(count: number, createdAt: Date, status = 200): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('request', createdAt.getTime()));
  await observer`
    insert into request_log (id, account_id, method, path, status, duration_ms, created_at)
    select id, ${ACCOUNT}, 'GET', '/merchants', ${status}, 3, ${createdAt.toISOString()}::timestamptz
    from unnest(${ids}::text[]) as request(id)`;
  return ids;
}

const left = async () =>
  (await observer<{ id: string }[]>`select id from request_log order by id`).map((row) => row.id);

const keptTotal = async () =>
  Number(
    (
      await observer<{ total: string | null }[]>`
        select sum(count)::text as total from list_counts where list = 'requests' and scope = ${ACCOUNT}`
    )[0]?.total ?? 0,
  );

describe('removeExpiredRequests', () => {
  it('is 30 days', () => {
    expect(REQUEST_LOG_RETENTION_DAYS).toBe(30);
    expect(now.getTime() - before.getTime()).toBe(30 * DAY);
  });

  it('removes only the requests older than 30 days, and their kept totals', async () => {
    await seed(4, new Date(now.getTime() - 40 * DAY));
    await seed(3, new Date(before.getTime() - 1), 404);
    const justInside = await seed(2, new Date(before.getTime() + 1));
    const recent = await seed(5, new Date(now.getTime() - DAY), 201);
    expect(await keptTotal()).toBe(14);

    expect(await removeExpiredRequests(database.db, { before, batchSize: 100 })).toEqual({ removed: 7, batches: 1 });
    expect(await left()).toEqual([...justInside, ...recent].sort());
    expect(await keptTotal()).toBe(7);
    // Nothing more to remove.
    expect(await removeExpiredRequests(database.db, { before, batchSize: 100 })).toEqual({ removed: 0, batches: 1 });
  });

  it('removes in batches of batchSize until one comes short', async () => {
    await seed(23, new Date(now.getTime() - 31 * DAY));
    const stays = await seed(1, now);
    expect(await removeExpiredRequests(database.db, { before, batchSize: 5 })).toEqual({ removed: 23, batches: 5 });
    expect(await left()).toEqual(stays);
  });

  it('two runs at once remove each request once, without error', async () => {
    await seed(300, new Date(now.getTime() - 35 * DAY));
    const runs = await Promise.all([
      removeExpiredRequests(database.db, { before, batchSize: 10 }),
      removeExpiredRequests(database.db, { before, batchSize: 10 }),
    ]);
    expect(runs[0].removed + runs[1].removed).toBe(300);
    expect(await left()).toEqual([]);
    expect(await keptTotal()).toBe(0);
  });

  it('stops at the next batch once its signal aborts', async () => {
    await seed(20, new Date(now.getTime() - 45 * DAY));
    const stopping = new AbortController();
    stopping.abort();
    expect(await removeExpiredRequests(database.db, { before, batchSize: 5, signal: stopping.signal })).toEqual({
      removed: 0,
      batches: 0,
    });
    expect(await left()).toHaveLength(20);
  });
});
