import type { Db, DbOrTx } from '@pps/shared/db';
import { schema, textArray, withTransaction } from '@pps/shared/db';
import { newId } from '@pps/shared/ids';
import type { Queue } from 'bullmq';
import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type Redis from 'ioredis';
import { deliveryJob, deliveryJobId } from '../delivery/delivery-job';
import type { LeasedDelivery } from '../delivery/direct-deliveries';

const { events, unrelayedEvents, webhookDeliveries, webhookEndpoints } = schema;

export type RelayDeps = { db: Db; queue: Queue; batchSize: number };

const jobColumns = {
  id: webhookDeliveries.id,
  endpointId: webhookDeliveries.endpointId,
  redeliveries: webhookDeliveries.redeliveries,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
};

/**
 * Fans unrelayed events out to the subscribed endpoints of their account, as delivery rows, in one transaction:
 * the events are claimed off the relay's queue with SKIP LOCKED (several relays never take the same one), oldest id
 * first, the deliveries inserted with ON CONFLICT DO NOTHING (a relay that runs twice creates nothing twice), and
 * the events taken off the queue. The deliveries are leased to this process for `leaseMs` (`enqueued_at` set: the
 * relay enqueues no job for them): once committed, it makes their first attempts itself (`DirectDeliveries`).
 * Returns how many events it claimed and the deliveries it made.
 */
export async function fanOut(deps: RelayDeps, leaseMs: number): Promise<{ claimed: number; leased: LeasedDelivery[] }> {
  return withTransaction(deps.db, async (tx) => {
    const claimed = await claimUnrelayed(tx, deps.batchSize);
    if (claimed.length === 0) return { claimed: 0, leased: [] };
    const accountIds = [...new Set(claimed.map((event) => event.accountId))];
    const endpoints = await tx
      .select({
        id: webhookEndpoints.id,
        accountId: webhookEndpoints.accountId,
        events: webhookEndpoints.events,
        createdAt: webhookEndpoints.createdAt,
      })
      .from(webhookEndpoints)
      .where(
        and(
          sql`${webhookEndpoints.accountId} = any(${textArray(accountIds)})`,
          eq(webhookEndpoints.enabled, true),
          isNull(webhookEndpoints.deletedAt),
        ),
      );
    const now = new Date();
    const leasedUntil = new Date(now.getTime() + leaseMs);
    const deliveries = claimed.flatMap((event) =>
      endpoints
        .filter((endpoint) => endpoint.accountId === event.accountId)
        // An endpoint hears what happened after it subscribed, even when the relay catches up late.
        .filter((endpoint) => endpoint.createdAt <= event.createdAt)
        .filter((endpoint) => endpoint.events.includes('*') || endpoint.events.includes(event.type))
        .map((endpoint) => ({
          id: newId('delivery'),
          accountId: event.accountId,
          endpointId: endpoint.id,
          eventId: event.id,
          enqueuedAt: now,
          leasedUntil,
        })),
    );
    const inserted =
      deliveries.length > 0
        ? await tx
            .insert(webhookDeliveries)
            .values(deliveries)
            .onConflictDoNothing()
            .returning({ id: webhookDeliveries.id, endpointId: webhookDeliveries.endpointId })
        : [];
    await tx
      .delete(unrelayedEvents)
      .where(sql`${unrelayedEvents.eventId} = any(${textArray(claimed.map((event) => event.id))})`);
    return { claimed: claimed.length, leased: inserted.map((row) => ({ ...row, leasedAt: now.getTime() })) };
  });
}

/**
 * Claims up to `limit` events off the relay's queue, oldest id first, with SKIP LOCKED; the events are then read
 * by id. A join of the queue and the events let the planner merge them along the events' primary key, reading
 * every event ever written to find the few queued: its estimate of the queue comes from the last ANALYZE, which a
 * burst leaves at thousands of rows, so each round cost in proportion to the events table (docs/decisions.md,
 * Performance: scans that grew with the tables).
 */
export function claimUnrelayed(db: DbOrTx, limit: number) {
  const queued = db
    .select({ id: unrelayedEvents.eventId })
    .from(unrelayedEvents)
    .orderBy(asc(unrelayedEvents.eventId))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .select({ id: events.id, accountId: events.accountId, type: events.type, createdAt: events.createdAt })
    .from(events)
    .where(sql`${events.id} = any(array(${queued}))`)
    .orderBy(asc(events.id));
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
export async function redisWasEmptied(redis: Redis, queue: Queue): Promise<boolean> {
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
 * mid-job). A job that finished (failed or completed) is removed first, since adding an id that still exists is
 * ignored; a live one (waiting, delayed, active) is left alone, so this never doubles a delivery in flight.
 */
export async function requeueStale(deps: RelayDeps, now = new Date()): Promise<number> {
  const stale = await staleDeliveries(deps.db, now, deps.batchSize);
  for (const delivery of stale) {
    const job = await deps.queue.getJob(deliveryJobId(delivery));
    const state = job ? await job.getState() : 'missing';
    if (job && (state === 'failed' || state === 'completed')) await job.remove();
  }
  if (stale.length > 0) await deps.queue.addBulk(stale.map(deliveryJob));
  return stale.length;
}

/**
 * Pending deliveries whose job went out over two minutes ago and whose next attempt is over a minute late; read
 * along the in-flight index (pending and enqueued), so the sweep never scans the deliveries already done. Leased
 * ones are the lease sweep's.
 */
export function staleDeliveries(db: DbOrTx, now: Date, limit: number) {
  return db
    .select(jobColumns)
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, 'pending'),
        sql`${webhookDeliveries.enqueuedAt} < ${new Date(now.getTime() - 120_000).toISOString()}::timestamptz`,
        sql`coalesce(${webhookDeliveries.nextAttemptAt}, ${webhookDeliveries.enqueuedAt}) < ${new Date(now.getTime() - 60_000).toISOString()}::timestamptz`,
        isNull(webhookDeliveries.leasedUntil),
      ),
    )
    .limit(limit);
}

/**
 * Deliveries whose lease lapsed while still pending (the process that leased them died, or Redis refused their
 * handoff): each gets a job unless one is alive already (handed off, its lease not yet ended), then the lease
 * ends. Claimed with SKIP LOCKED, so several relays share the work; with Redis down nothing changes and the next
 * sweep tries again.
 */
export async function reclaimLapsedLeases(deps: RelayDeps, now = new Date()): Promise<number> {
  return withTransaction(deps.db, async (tx) => {
    const lapsed = await tx
      .select(jobColumns)
      .from(webhookDeliveries)
      .where(
        and(
          sql`${webhookDeliveries.leasedUntil} < ${now.toISOString()}::timestamptz`,
          eq(webhookDeliveries.status, 'pending'),
        ),
      )
      .orderBy(asc(webhookDeliveries.leasedUntil))
      .limit(deps.batchSize)
      .for('update', { skipLocked: true });
    if (lapsed.length === 0) return 0;
    const orphans = [];
    for (const delivery of lapsed) {
      const job = await deps.queue.getJob(deliveryJobId(delivery));
      const state = job ? await job.getState() : 'missing';
      if (job && (state === 'failed' || state === 'completed')) await job.remove();
      if (!job || state === 'failed' || state === 'completed' || state === 'unknown') orphans.push(delivery);
    }
    if (orphans.length > 0) await deps.queue.addBulk(orphans.map(deliveryJob));
    await tx
      .update(webhookDeliveries)
      .set({ leasedUntil: null })
      .where(sql`${webhookDeliveries.id} = any(${textArray(lapsed.map((delivery) => delivery.id))})`);
    return orphans.length;
  });
}
