import type { Db, DbOrTx } from '@pps/shared/db';
import { pipelinedTransaction, rowMapper, type Sent, schema, send, textArray, withTransaction } from '@pps/shared/db';
import { newId } from '@pps/shared/ids';
import type { RedisClient } from '@pps/shared/queues';
import { renderEventPayloadText } from '@pps/shared/versions';
import type { Queue } from 'bullmq';
import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { LoadedDelivery } from '../delivery/delivery-io';
import { deliveryJob, deliveryJobId } from '../delivery/delivery-job';
import type { LeasedDelivery } from '../delivery/direct-deliveries';

const { events, webhookDeliveries, webhookEndpoints } = schema;

export type RelayDeps = {
  db: Db;
  queue: Queue;
  batchSize: number;
  /** How long a delivery's job may have gone out before the stale sweep gives it another (WEBHOOK_STALE_SECONDS). */
  staleAfterMs?: number;
};

const STALE_AFTER_MS = 120_000;

const jobColumns = {
  id: webhookDeliveries.id,
  endpointId: webhookDeliveries.endpointId,
  redeliveries: webhookDeliveries.redeliveries,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
};

/**
 * The events claimed off the relay's queue, up to $1, oldest id first, with SKIP LOCKED (several relays never take
 * the same one), each with the endpoints it goes to: its account's, enabled, subscribed to its type, and made before
 * it (an endpoint hears what happened after it subscribed, even when the relay catches up late); an event no
 * endpoint hears is one row with no endpoint. Each row going to an endpoint carries what its first attempt needs
 * (the payload as the text it is stored as, which is the body sent in the endpoint's version; the endpoint's URL,
 * secrets and version), read here from
 * the rows the claim reads anyway, so first attempts load nothing. The queue is read first and the events then by
 * id: a join of the two let the planner merge them along the events' primary key, reading every event ever written
 * to find the few queued, since its estimate of the queue comes from the last ANALYZE, which a burst leaves at
 * thousands of rows (docs/decisions.md, Performance: scans that grew with the tables).
 */
const CLAIM = `
  select e.id as event_id, e.account_id, e.created_at, w.id as endpoint_id,
    case when w.id is not null then e.payload::text end as body, w.url, w.secret_enc, w.previous_secret_enc,
    w.previous_secret_expires_at, w.api_version
  from events e
  left join webhook_endpoints w on w.account_id = e.account_id and w.enabled and w.deleted_at is null
    and w.created_at <= e.created_at and (w.events ? '*' or w.events ? e.type)
  where e.id = any(array(
    select event_id from unrelayed_events order by event_id limit $1 for update skip locked))
  order by e.id`;

/** The claim as a statement (what test/payments/background-scans.test.ts runs under EXPLAIN). */
export const claimUnrelayed = (limit: number) => ({ text: CLAIM, params: [limit] });

/**
 * The deliveries made, each event's to each endpoint, leased to this process for $5 ms. Times are the database's,
 * as the lease sweep's are: the processes' clocks may differ, and a lease read early sends a delivery twice.
 */
const INSERT_DELIVERIES = `
  insert into webhook_deliveries (id, account_id, endpoint_id, event_id, status, attempts, redeliveries,
    enqueued_at, leased_until, created_at, updated_at)
  select id, account_id, endpoint_id, event_id, 'pending', 0, 0, now(), now() + $5::int * interval '1 millisecond',
    now(), now()
  from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as d(id, account_id, endpoint_id, event_id)
  on conflict do nothing
  returning id, endpoint_id, event_id`;

const UNQUEUE = 'delete from unrelayed_events where event_id = any($1::text[])';

const claimedRow = rowMapper({
  eventId: webhookDeliveries.eventId,
  accountId: webhookDeliveries.accountId,
  eventCreatedAt: events.createdAt,
  // The rest is null on the row of an event no endpoint hears.
  endpointId: z.string().nullable(),
  body: z.string().nullable(),
  url: webhookEndpoints.url,
  secretEnc: webhookEndpoints.secretEnc,
  previousSecretEnc: webhookEndpoints.previousSecretEnc,
  previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
  apiVersion: webhookEndpoints.apiVersion,
});
type Claimed = ReturnType<typeof claimedRow>;
const insertedRow = rowMapper({
  id: webhookDeliveries.id,
  endpointId: webhookDeliveries.endpointId,
  eventId: webhookDeliveries.eventId,
});
const pairKey = (row: { eventId: string; endpointId: string }) => `${row.eventId} ${row.endpointId}`;

/** A claimed row going to an endpoint: a delivery to make. */
type ToMake = Claimed & { endpointId: string; body: string };

/** A new delivery's first attempt, from its claimed row: pending, no attempt yet, its endpoint enabled. */
const firstAttemptOf = (id: string, row: ToMake): LoadedDelivery => ({
  id,
  status: 'pending',
  attempts: 0,
  endpointId: row.endpointId,
  eventId: row.eventId,
  eventCreatedAt: row.eventCreatedAt,
  // In the endpoint's version: the stored text itself for the newest.
  body: renderEventPayloadText(row.body, row.apiVersion),
  url: row.url,
  enabled: true,
  deletedAt: null,
  secretEnc: row.secretEnc,
  previousSecretEnc: row.previousSecretEnc,
  previousSecretExpiresAt: row.previousSecretExpiresAt,
  apiVersion: row.apiVersion,
});

/**
 * Fans unrelayed events out to the subscribed endpoints of their account, as delivery rows, in one transaction of
 * two round trips (the claim; then the inserts, the events taken off the queue and the commit): the deliveries
 * inserted with ON CONFLICT DO NOTHING (a relay that runs twice creates nothing twice; a delivery the API made
 * first is left to its job). They are leased to this process for `leaseMs` (`enqueued_at` set: the relay enqueues
 * no job for them): once committed, it makes their first attempts itself (`DirectDeliveries`), with what the claim
 * read. Returns how many events it claimed and the deliveries it made. Written out (`send`): it is `npm run
 * bench:webhooks`' hot path, where drizzle building statements of hundreds of rows showed.
 */
export async function fanOut(deps: RelayDeps, leaseMs: number): Promise<{ claimed: number; leased: LeasedDelivery[] }> {
  const leasedAt = Date.now();
  const { claimed, toMake, inserted } = await pipelinedTransaction<{
    claimed: number;
    toMake?: Map<string, ToMake>;
    inserted?: Sent<Record<string, unknown>[]>;
  }>(deps.db, async (tx) => {
    const rows = (await send(tx, CLAIM, [deps.batchSize])).map(claimedRow);
    const eventIds = [...new Set(rows.map((row) => row.eventId))];
    if (eventIds.length === 0) return { result: { claimed: 0 } };
    const unqueued = send(tx, UNQUEUE, [eventIds]);
    const toMake = new Map<string, ToMake>();
    for (const row of rows) {
      const { endpointId, body } = row;
      if (endpointId !== null && body !== null) {
        toMake.set(pairKey({ eventId: row.eventId, endpointId }), { ...row, endpointId, body });
      }
    }
    if (toMake.size === 0) return { result: { claimed: eventIds.length }, pending: [unqueued] };
    const deliveries = [...toMake.values()];
    const made = send(tx, INSERT_DELIVERIES, [
      deliveries.map(() => newId('delivery')),
      deliveries.map((delivery) => delivery.accountId),
      deliveries.map((delivery) => delivery.endpointId),
      deliveries.map((delivery) => delivery.eventId),
      leaseMs,
    ]);
    // Read once committed (the transaction settles every statement it sent first, and throws on a failed one).
    return { result: { claimed: eventIds.length, toMake, inserted: made }, pending: [unqueued, made] };
  });
  if (!inserted || !toMake) return { claimed, leased: [] };
  const leased = (await inserted).map(insertedRow).map((row) => ({
    id: row.id,
    endpointId: row.endpointId,
    leasedAt,
    loaded: firstAttemptOf(row.id, toMake.get(pairKey(row)) as ToMake),
  }));
  return { claimed, leased };
}

/**
 * Enqueues the delivery jobs of pending deliveries not enqueued yet (new ones, reopened ones), then marks them,
 * in one transaction. The job id is the delivery's: a relay that dies after enqueueing and before marking makes
 * the next one add the same job ids, which BullMQ ignores. With Redis down, nothing is marked and the deliveries
 * wait in PostgreSQL until it is back.
 */
export async function enqueueDeliveries(deps: RelayDeps): Promise<number> {
  return withTransaction(deps.db, async (tx) => {
    const due = await tx
      .select(jobColumns)
      .from(webhookDeliveries)
      .where(and(isNull(webhookDeliveries.enqueuedAt), eq(webhookDeliveries.status, 'pending')))
      .orderBy(asc(webhookDeliveries.createdAt))
      .limit(deps.batchSize)
      .for('update', { skipLocked: true });
    if (due.length === 0) return 0;
    await deps.queue.addBulk(due.map(deliveryJob));
    await tx
      .update(webhookDeliveries)
      .set({ enqueuedAt: new Date() })
      .where(sql`${webhookDeliveries.id} = any(${textArray(due.map((delivery) => delivery.id))})`);
    return due.length;
  });
}

/**
 * True once after Redis lost the queue's data (a restart without persistence, a failover to an empty replica, a
 * flush), and on the first round against a new Redis: a marker key the relay sets when it is missing. SET NX makes
 * one relay of several the one that answers true.
 */
export async function redisWasEmptied(redis: RedisClient, queue: Queue): Promise<boolean> {
  return (await redis.set(queue.toKey('relay-marker'), new Date().toISOString(), 'NX')) === 'OK';
}

/**
 * After Redis lost its data, every delivery in flight (pending, its job enqueued) has lost its job: they are
 * handed back to the relay, whose next step enqueues them again, each delayed to its own next attempt. A job that
 * Redis did keep has the same id, so adding it again is ignored: nothing is delivered twice. Leased deliveries are
 * a process's own (no job): the lease sweep looks after them.
 */
export async function reopenInFlightDeliveries(db: DbOrTx): Promise<number> {
  const reopened = await db
    .update(webhookDeliveries)
    .set({ enqueuedAt: null })
    .where(
      and(
        eq(webhookDeliveries.status, 'pending'),
        isNotNull(webhookDeliveries.enqueuedAt),
        isNull(webhookDeliveries.leasedUntil),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return reopened.length;
}

/**
 * Re-enqueues pending deliveries whose job should have run a while ago: a Redis that lost its data, or a job
 * BullMQ gave up on while the delivery still waits (database errors used up its attempts, a worker killed twice
 * mid-job). A live job is left alone (`enqueueUnlessAlive`).
 */
export async function requeueStale(deps: RelayDeps, now = new Date()): Promise<number> {
  const stale = await staleDeliveries(deps.db, now, deps.batchSize, deps.staleAfterMs);
  await enqueueUnlessAlive(deps.queue, stale);
  return stale.length;
}

type JobOf = { id: string; endpointId: string; redeliveries: number; nextAttemptAt: Date | null };

/**
 * Gives each delivery its job unless one is alive (waiting, delayed, active): a finished one (failed or completed)
 * is removed first, since adding an id that still exists is ignored, and adding a live one again is a no-op, so
 * this never doubles a delivery in flight. Returns how many had no live job.
 */
async function enqueueUnlessAlive(queue: Queue, deliveries: JobOf[]): Promise<number> {
  let given = 0;
  for (const delivery of deliveries) {
    const job = await queue.getJob(deliveryJobId(delivery));
    const state = job ? await job.getState() : 'missing';
    if (job && (state === 'failed' || state === 'completed')) await job.remove();
    if (!job || state === 'failed' || state === 'completed' || state === 'unknown') given += 1;
  }
  if (deliveries.length > 0) await queue.addBulk(deliveries.map(deliveryJob));
  return given;
}

/**
 * Pending deliveries whose job went out over `staleAfterMs` ago (two minutes by default) and whose next attempt is
 * over half of that late; read along the in-flight index (pending, enqueued, not leased), so the sweep never scans
 * the deliveries done. Leased ones are the lease sweep's.
 */
export function staleDeliveries(db: DbOrTx, now: Date, limit: number, staleAfterMs = STALE_AFTER_MS) {
  return db
    .select(jobColumns)
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, 'pending'),
        sql`${webhookDeliveries.enqueuedAt} < ${new Date(now.getTime() - staleAfterMs).toISOString()}::timestamptz`,
        sql`coalesce(${webhookDeliveries.nextAttemptAt}, ${webhookDeliveries.enqueuedAt}) < ${new Date(now.getTime() - staleAfterMs / 2).toISOString()}::timestamptz`,
        isNull(webhookDeliveries.leasedUntil),
      ),
    )
    .limit(limit);
}

/**
 * Deliveries whose lease lapsed while still pending (the process that leased them died, or Redis refused their
 * handoff), by the database's clock: each gets a job unless one is alive already (handed off, its lease not yet
 * ended), then the lease ends. Claimed with SKIP LOCKED, so several relays share the work; with Redis down nothing
 * changes and the next sweep tries again.
 */
export async function reclaimLapsedLeases(deps: RelayDeps): Promise<number> {
  return withTransaction(deps.db, async (tx) => {
    const lapsed = await tx
      .select(jobColumns)
      .from(webhookDeliveries)
      .where(and(sql`${webhookDeliveries.leasedUntil} < now()`, eq(webhookDeliveries.status, 'pending')))
      .orderBy(asc(webhookDeliveries.leasedUntil))
      .limit(deps.batchSize)
      .for('update', { skipLocked: true });
    if (lapsed.length === 0) return 0;
    const given = await enqueueUnlessAlive(deps.queue, lapsed);
    await tx
      .update(webhookDeliveries)
      .set({ leasedUntil: null })
      .where(sql`${webhookDeliveries.id} = any(${textArray(lapsed.map((delivery) => delivery.id))})`);
    return given;
  });
}
