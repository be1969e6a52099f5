import { type DbOrTx, schema } from '@pps/shared/db';
import { asc, count, eq, gte, lt } from 'drizzle-orm';

const { healthSamples, unrelayedEvents, events } = schema;

/** Past this many events waiting for the relay, the backlog is "more than" it: counting on would read them all. */
export const OUTBOX_COUNT_CAP = 10_000;

/**
 * The outbox relay's backlog: the events it has not fanned out yet (counted up to OUTBOX_COUNT_CAP + 1) and when the
 * oldest was written. Event ids sort by creation, so the oldest is the first by id: one index read, however long the
 * queue.
 */
export async function readOutboxBacklog(db: DbOrTx): Promise<{ unrelayed: number; oldestAt: Date | undefined }> {
  const capped = db
    .select({ eventId: unrelayedEvents.eventId })
    .from(unrelayedEvents)
    .limit(OUTBOX_COUNT_CAP + 1)
    .as('capped');
  const [[counted], [oldest]] = await Promise.all([
    db.select({ n: count() }).from(capped),
    db
      .select({ createdAt: events.createdAt })
      .from(unrelayedEvents)
      .innerJoin(events, eq(events.id, unrelayedEvents.eventId))
      .orderBy(asc(unrelayedEvents.eventId))
      .limit(1),
  ]);
  return { unrelayed: counted?.n ?? 0, oldestAt: oldest?.createdAt };
}

/** Keeps one sample; a second one of the same instant (two jobs at once) is dropped. */
export async function insertHealthSample(db: DbOrTx, sample: schema.HealthSample): Promise<void> {
  await db.insert(healthSamples).values(sample).onConflictDoNothing();
}

/** Removes the samples taken before `before`; how many went. */
export async function deleteHealthSamplesBefore(db: DbOrTx, before: Date): Promise<number> {
  const removed = await db
    .delete(healthSamples)
    .where(lt(healthSamples.takenAt, before))
    .returning({ takenAt: healthSamples.takenAt });
  return removed.length;
}

/** The samples taken since `since`, oldest first: at most a row a minute, so an hour is about sixty rows. */
export const healthSamplesSince = (db: DbOrTx, since: Date) =>
  db.select().from(healthSamples).where(gte(healthSamples.takenAt, since)).orderBy(asc(healthSamples.takenAt));
