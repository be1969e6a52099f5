import {
  countedLists,
  type DbOrTx,
  type Keyset,
  keptCount,
  keysetPage,
  keysetRead,
  placeIn,
  schema,
  type Travel,
} from '@pps/shared/db';
import { OUTBOX_CHANNEL } from '@pps/shared/events';
import { and, count, eq, sql } from 'drizzle-orm';

const { events, unrelayedEvents } = schema;

export type EventRow = schema.EventRow;

/**
 * An event by id. `keep`: held with `FOR KEY SHARE` until the caller's transaction ends, so retention (which locks
 * what it removes, skipping locked rows) cannot remove it under a redelivery being made of it.
 */
export async function findEvent(
  db: DbOrTx,
  id: string,
  options: { keep?: boolean } = {},
): Promise<EventRow | undefined> {
  const query = db.select().from(events).where(eq(events.id, id));
  const [row] = options.keep ? await query.for('key share') : await query;
  return row;
}

/** An event's place in the account's list, for a cursor; undefined when it is no event of the account's. */
export const eventPlace = (db: DbOrTx, accountId: string, id: string) =>
  placeIn(db, events, id, eq(events.accountId, accountId));

export async function listEvents(
  db: DbOrTx,
  filter: { accountId: string; type?: string; resourceId?: string; limit: number; offset: number; keyset?: Keyset },
): Promise<{ rows: EventRow[]; total: number; travel?: Travel }> {
  const where = and(
    eq(events.accountId, filter.accountId),
    filter.type === undefined ? undefined : eq(events.type, filter.type),
    filter.resourceId === undefined ? undefined : eq(events.resourceId, filter.resourceId),
  );
  const read = keysetRead(events, filter.keyset, filter.limit);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(events)
      .where(and(where, read.where))
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(filter.offset),
    // A resource's events are few, counted along its index; else the account's kept total.
    filter.resourceId === undefined
      ? keptCount(db, {
          list: countedLists.events,
          scope: filter.accountId,
          buckets: filter.type === undefined ? undefined : [filter.type],
        })
      : db
          .select({ total: count() })
          .from(events)
          .where(where)
          .then(([counted]) => counted?.total ?? 0),
  ]);
  return { ...keysetPage(rows, filter.limit, filter.keyset), total };
}

/** Takes an event off the relay's queue, so the relay does not fan it out (its deliveries were made by the caller). */
export async function markRelayed(db: DbOrTx, id: string): Promise<void> {
  await db.delete(unrelayedEvents).where(eq(unrelayedEvents.eventId, id));
}

/** Wakes the outbox relay; PostgreSQL sends the notification when the transaction commits. */
export async function notifyOutbox(db: DbOrTx): Promise<void> {
  // The builder writes no NOTIFY; the channel is a constant, so the text is too.
  await db.execute(sql.raw(`notify ${OUTBOX_CHANNEL}`));
}
