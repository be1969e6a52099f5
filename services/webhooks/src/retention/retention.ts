import { type Db, schema, textArray } from '@pps/shared/db';
import { idTimeBound } from '@pps/shared/ids';
import { sql } from 'drizzle-orm';

const { events, unrelayedEvents, webhookAttempts, webhookDeliveries } = schema;

export type RemovedEvents = { events: number; deliveries: number; attempts: number; batches: number };

/**
 * Statuses after which a delivery is never attempted again unless someone asks for a redelivery. Listed rather
 * than "not pending", so a status added later keeps its events until it is put here.
 */
const FINAL: readonly schema.DeliveryStatus[] = ['succeeded', 'failed'];

/**
 * How long after its `created_at` an event's id may have been made: the id is made just after the time is taken
 * (`now` is the request's, at most), so an hour is ample. The scan is bounded by ids up to `before` plus this,
 * a range of the primary key rather than a read of the whole table; `created_at` still decides what goes.
 */
const ID_AFTER_CREATED_MS = 3_600_000;

/**
 * Removes the events created before `before` that are done with, their webhook deliveries and the deliveries'
 * attempts, `batchSize` events at a time, until a batch finds fewer or `signal` aborts (the batch under way
 * finishes). Done with: fanned out by the relay (not in `unrelayed_events`, so no queue row is ever left behind)
 * and every delivery final. An event with a delivery still pending stays until it is final, and one more run
 * takes it. `event_sequences` is kept: a resource that outlives its events goes on numbering from where it was.
 *
 * Each batch is one statement, so it is its own short transaction and no lock outlives it. Its events are locked
 * with SKIP LOCKED: two runs at once take disjoint batches, neither waiting for the other, and each event is
 * counted by the run that removed it. The events are taken in id order from after the previous batch's last, so a
 * batch does not read again what earlier ones kept or removed.
 */
export async function removeExpiredEvents(
  db: Db,
  input: { before: Date; batchSize: number; signal?: AbortSignal },
): Promise<RemovedEvents> {
  const removed: RemovedEvents = { events: 0, deliveries: 0, attempts: 0, batches: 0 };
  const before = input.before.toISOString();
  const idBound = idTimeBound('event', new Date(input.before.getTime() + ID_AFTER_CREATED_MS));
  // Every id sorts after the empty string: the first batch starts at the beginning.
  let after = '';
  while (!input.signal?.aborted) {
    // Written out: the builder writes no deletes in WITH. Attempts and deliveries go in the same statement as their
    // events: the attempts' foreign key is checked at its end, and no delivery is left pointing at a removed event.
    // Each table is read by id, the events as a range of their primary key and the rest one probe per event,
    // whatever the planner estimates, as each way it chose otherwise read a whole table or index on every batch:
    // `+ interval '0 s'` keeps `created_at` a filter (as an index condition it was ANDed with a scan of all of
    // `events_account_created_idx`, account first, once the range was small); the pending check is fenced with
    // `offset 0` (an anti join merged along the deliveries' event index from its start); the deletes take
    // `= any(array(…))` (joined, the delete from events was a hash join over every event).
    const [batch] = await db.execute<{ events: number; deliveries: number; attempts: number; last: string | null }>(
      sql`
        with doomed as materialized (
          select e.id from ${events} as e
          where e.id > ${after} and e.id < ${idBound} and e.created_at + interval '0 s' < ${before}::timestamptz
            and not exists (select 1 from ${unrelayedEvents} as u where u.event_id = e.id)
            and not exists (
              select 1 from ${webhookDeliveries} as d
              where d.event_id = e.id and d.status <> all(${textArray(FINAL)}) offset 0)
          order by e.id
          limit ${input.batchSize}
          for update of e skip locked),
        deliveries as (
          delete from ${webhookDeliveries} as d where d.event_id = any(array(select id from doomed)) returning d.id),
        attempts as (
          delete from ${webhookAttempts} as a where a.delivery_id = any(array(select id from deliveries))
          returning a.id),
        removed as (delete from ${events} as e where e.id = any(array(select id from doomed)) returning e.id)
        select (select count(*)::int from removed) as events, (select count(*)::int from deliveries) as deliveries,
          (select count(*)::int from attempts) as attempts, (select max(id) from removed) as last`,
    );
    removed.batches++;
    removed.events += batch?.events ?? 0;
    removed.deliveries += batch?.deliveries ?? 0;
    removed.attempts += batch?.attempts ?? 0;
    if (!batch?.last || batch.events < input.batchSize) break;
    after = batch.last;
  }
  return removed;
}
