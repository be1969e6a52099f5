import { createDatabase, type Database, texts } from '@pps/shared/db';
import { newId } from '@pps/shared/ids';
import { createDatabaseFromTemplate } from '@pps/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { removeExpiredEvents } from './retention';

/**
 * Event retention against a real PostgreSQL: what is removed (old, relayed, every delivery final) with its
 * deliveries and attempts, what stays, batches, two runs at once, and a run stopped by its signal.
 */
let url: string;
let database: Database;
let observer: postgres.Sql;
let drop: () => Promise<void>;

const ACCOUNT = 'acct_retention';
const ENDPOINTS = ['whk_retention_a', 'whk_retention_b'];
const DAY = 86_400_000;
const now = Date.now();
const before = new Date(now - 30 * DAY);
const old = new Date(now - 40 * DAY);
const recent = new Date(now - DAY);

beforeAll(async () => {
  const created = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  ({ url, drop } = created);
  database = createDatabase(url, { max: 4 });
  observer = postgres(url, { max: 2, onnotice: () => {} });
  await observer`
    insert into accounts (id, name, api_key_hash, api_key_last4) values (${ACCOUNT}, 'Retention', 'hash_retention', '0000')`;
  await observer`
    insert into webhook_endpoints (id, account_id, url, events, secret_enc)
    select id, ${ACCOUNT}, 'https://receiver.example.com/hooks', '["*"]', 'unused'
    from unnest(${ENDPOINTS}::text[]) as endpoint(id)`;
});
afterAll(async () => {
  await observer?.end();
  await database?.close();
  await drop?.();
});
beforeEach(async () => {
  await observer`truncate webhook_attempts, webhook_deliveries, unrelayed_events, events, event_sequences`;
});

type Seed = {
  createdAt: Date;
  /** When the id was made (default `createdAt`). */
  idAt?: Date;
  /** One delivery per status, to the endpoints in turn, each with `attempts` attempts. */
  deliveries?: ('pending' | 'succeeded' | 'failed')[];
  attempts?: number;
  /** Still on the relay's queue. */
  unrelayed?: boolean;
};

/** `count` events of one resource as `seed` says; returns their ids. */
async function seedEvents(count: number, seed: Seed): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('event', (seed.idAt ?? seed.createdAt).getTime()));
  const resourceId = newId('payment');
  await observer`
    insert into events (id, account_id, type, resource_type, resource_id, sequence, payload, created_at)
    select id, ${ACCOUNT}, 'payment.completed', 'payment', ${resourceId}, ordinality::int, '{}',
      ${seed.createdAt.toISOString()}::timestamptz
    from unnest(${ids}::text[]) with ordinality as event(id, ordinality)`;
  await observer`insert into event_sequences (resource_id, last_sequence) values (${resourceId}, ${count})`;
  if (seed.unrelayed) await observer`insert into unrelayed_events (event_id) select unnest(${ids}::text[])`;
  const deliveries = ids.flatMap((eventId) =>
    (seed.deliveries ?? []).map((status, index) => ({
      id: newId('delivery'),
      eventId,
      endpointId: ENDPOINTS[index % ENDPOINTS.length]!,
      status,
    })),
  );
  if (deliveries.length === 0) return ids;
  const column = (pick: (delivery: (typeof deliveries)[number]) => string) => texts(deliveries.map(pick));
  await observer`
    insert into webhook_deliveries (id, account_id, endpoint_id, event_id, status, created_at, updated_at)
    select id, ${ACCOUNT}, endpoint_id, event_id, status, ${seed.createdAt.toISOString()}::timestamptz,
      ${seed.createdAt.toISOString()}::timestamptz
    from unnest(${column((d) => d.id)}::text[], ${column((d) => d.endpointId)}::text[],
      ${column((d) => d.eventId)}::text[], ${column((d) => d.status)}::text[]) as delivery(id, endpoint_id, event_id, status)`;
  await observer`
    insert into webhook_attempts (delivery_id, attempt, status_code, latency_ms)
    select delivery.id, attempt, 500, 12
    from unnest(${column((d) => d.id)}::text[]) as delivery(id), generate_series(1, ${seed.attempts ?? 0}) attempt`;
  return ids;
}

/** What is left: counts of each table, and whether these events are still there. */
async function left(eventIds: string[] = []) {
  const [counts] = await observer`
    select (select count(*)::int from events) as events, (select count(*)::int from webhook_deliveries) as deliveries,
      (select count(*)::int from webhook_attempts) as attempts, (select count(*)::int from event_sequences) as sequences,
      (select count(*)::int from events where id = any(${eventIds}::text[])) as kept`;
  return counts as { events: number; deliveries: number; attempts: number; sequences: number; kept: number };
}

describe('removeExpiredEvents', () => {
  it('removes old events whose deliveries are final, with their deliveries and attempts; recent ones stay', async () => {
    await seedEvents(3, { createdAt: old, deliveries: ['succeeded', 'failed'], attempts: 2 });
    await seedEvents(2, { createdAt: old });
    const stays = await seedEvents(4, { createdAt: recent, deliveries: ['succeeded', 'failed'], attempts: 1 });

    expect(await removeExpiredEvents(database.db, { before, batchSize: 100 })).toEqual({
      events: 5,
      deliveries: 6,
      attempts: 12,
      batches: 1,
    });
    // The recent events with their 8 deliveries and 8 attempts; every resource's sequence counter.
    expect(await left(stays)).toEqual({ events: 4, deliveries: 8, attempts: 8, sequences: 3, kept: 4 });
    // Nothing more to remove.
    expect(await removeExpiredEvents(database.db, { before, batchSize: 100 })).toEqual({
      events: 0,
      deliveries: 0,
      attempts: 0,
      batches: 1,
    });
  });

  it('keeps an old event with a delivery still pending, and one the relay has not fanned out', async () => {
    const pending = await seedEvents(1, { createdAt: old, deliveries: ['failed', 'pending'], attempts: 3 });
    const unrelayed = await seedEvents(1, { createdAt: old, unrelayed: true });
    await seedEvents(1, { createdAt: old, deliveries: ['failed'], attempts: 1 });

    expect(await removeExpiredEvents(database.db, { before, batchSize: 100 })).toMatchObject({
      events: 1,
      deliveries: 1,
      attempts: 1,
    });
    expect(await left([...pending, ...unrelayed])).toMatchObject({ events: 2, deliveries: 2, attempts: 6, kept: 2 });
    const [queued] = await observer`select count(*)::int as n from unrelayed_events where event_id = ${unrelayed[0]!}`;
    expect(queued?.n).toBe(1);

    // Once the delivery is final, the next run takes the event.
    await observer`update webhook_deliveries set status = 'succeeded' where event_id = ${pending[0]!}`;
    expect(await removeExpiredEvents(database.db, { before, batchSize: 100 })).toMatchObject({
      events: 1,
      deliveries: 2,
      attempts: 6,
    });
  });

  it('goes by created_at: not by when the id was made', async () => {
    // Made an instant before `before`, its id a few seconds after: removed.
    const justBefore = await seedEvents(1, {
      createdAt: new Date(before.getTime() - 1),
      idAt: new Date(before.getTime() + 5000),
    });
    // An id from long ago, created after `before`: kept.
    const after = await seedEvents(1, { createdAt: new Date(before.getTime() + 1), idAt: old });

    expect(await removeExpiredEvents(database.db, { before, batchSize: 100 })).toMatchObject({ events: 1 });
    expect(await left(justBefore)).toMatchObject({ events: 1, kept: 0 });
    expect(await left(after)).toMatchObject({ events: 1, kept: 1 });
  });

  it('removes in batches of batchSize until one comes short', async () => {
    await seedEvents(30, { createdAt: old, deliveries: ['succeeded'], attempts: 1 });
    expect(await removeExpiredEvents(database.db, { before, batchSize: 7 })).toEqual({
      events: 30,
      deliveries: 30,
      attempts: 30,
      batches: 5,
    });
    expect(await left()).toMatchObject({ events: 0, deliveries: 0, attempts: 0 });
  });

  it('two runs at once remove each event once, without error', async () => {
    await seedEvents(400, { createdAt: old, deliveries: ['succeeded', 'failed'], attempts: 1 });
    const runs = await Promise.all([
      removeExpiredEvents(database.db, { before, batchSize: 10 }),
      removeExpiredEvents(database.db, { before, batchSize: 10 }),
    ]);
    expect(runs[0]!.events + runs[1]!.events).toBe(400);
    expect(runs[0]!.deliveries + runs[1]!.deliveries).toBe(800);
    expect(runs[0]!.attempts + runs[1]!.attempts).toBe(800);
    expect(await left()).toMatchObject({ events: 0, deliveries: 0, attempts: 0 });
  });

  it('passes over events another transaction holds, without waiting for it', async () => {
    const held = await seedEvents(3, { createdAt: old, deliveries: ['succeeded'], attempts: 1 });
    await seedEvents(5, { createdAt: old, deliveries: ['succeeded'], attempts: 1 });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = observer.begin(async (tx) => {
      await tx`select id from events where id = any(${held}::text[]) for update`;
      locked();
      await released;
    });
    await isLocked;
    try {
      expect(await removeExpiredEvents(database.db, { before, batchSize: 2 })).toMatchObject({ events: 5 });
    } finally {
      release();
      await holder;
    }
    expect(await left(held)).toMatchObject({ events: 3, kept: 3 });
    expect(await removeExpiredEvents(database.db, { before, batchSize: 2 })).toMatchObject({ events: 3 });
  });

  it('stops before the next batch once its signal aborts', async () => {
    await seedEvents(10, { createdAt: old, deliveries: ['succeeded'], attempts: 1 });
    expect(await removeExpiredEvents(database.db, { before, batchSize: 3, signal: AbortSignal.abort() })).toEqual({
      events: 0,
      deliveries: 0,
      attempts: 0,
      batches: 0,
    });

    // Aborted while its first batch is on its way: that batch completes, no other starts.
    const controller = new AbortController();
    const watched = createDatabase(url, {
      max: 1,
      onQuery: (query) => {
        if (query.includes('doomed')) controller.abort();
      },
    });
    try {
      expect(await removeExpiredEvents(watched.db, { before, batchSize: 3, signal: controller.signal })).toEqual({
        events: 3,
        deliveries: 3,
        attempts: 3,
        batches: 1,
      });
    } finally {
      await watched.close();
    }
    expect(await left()).toMatchObject({ events: 7 });
  });
});
