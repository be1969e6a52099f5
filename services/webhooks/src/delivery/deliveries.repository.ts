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
import { newId } from '@pps/shared/ids';
import { and, asc, count, eq, gte, inArray, lt, sql } from 'drizzle-orm';

const { events, webhookAttempts, webhookDeliveries } = schema;

export type WebhookDelivery = schema.WebhookDelivery;
export type WebhookAttempt = schema.WebhookAttempt;

/** A delivery as shown: the row, its event's type and its attempts, oldest first. */
export type DeliveryView = { delivery: WebhookDelivery; eventType: string; attempts: WebhookAttempt[] };

/**
 * A delivery made pending again (a redelivery, a recovery): not enqueued (the relay enqueues it), one more
 * redelivery (its job id is new), no completion and no retry scheduled; its attempts stay as its history.
 */
const reopenedState = (now: Date) => ({
  status: 'pending' as const,
  enqueuedAt: null,
  redeliveries: sql`${webhookDeliveries.redeliveries} + 1`,
  completedAt: null,
  nextAttemptAt: null,
  updatedAt: now,
});

/** A new pending delivery, not enqueued yet (the relay enqueues it). */
export async function insertDelivery(
  db: DbOrTx,
  values: { accountId: string; endpointId: string; eventId: string; now: Date },
): Promise<WebhookDelivery> {
  const [row] = await db
    .insert(webhookDeliveries)
    .values({
      id: newId('delivery'),
      accountId: values.accountId,
      endpointId: values.endpointId,
      eventId: values.eventId,
      status: 'pending',
      enqueuedAt: null,
      createdAt: values.now,
      updatedAt: values.now,
    })
    .returning();
  if (!row) throw new Error('webhook delivery insert returned no row');
  return row;
}

/**
 * Makes each endpoint's delivery of the event pending again, in one statement: an existing one is reopened
 * (not enqueued, one more redelivery, no completion, no scheduled retry), a missing one is created. The unique
 * (endpoint, event) index makes this safe against the relay creating the same delivery at the same time.
 */
export async function reopenDeliveries(
  db: DbOrTx,
  input: { accountId: string; eventId: string; endpointIds: string[]; now: Date },
): Promise<WebhookDelivery[]> {
  if (input.endpointIds.length === 0) return [];
  return db
    .insert(webhookDeliveries)
    .values(
      input.endpointIds.map((endpointId) => ({
        id: newId('delivery'),
        accountId: input.accountId,
        endpointId,
        eventId: input.eventId,
        status: 'pending' as const,
        enqueuedAt: null,
        createdAt: input.now,
        updatedAt: input.now,
      })),
    )
    .onConflictDoUpdate({
      target: [webhookDeliveries.endpointId, webhookDeliveries.eventId],
      set: reopenedState(input.now),
    })
    .returning();
}

/**
 * `POST /webhooks/{id}/recover`: every `failed` delivery of the endpoint made in the window (`since` ≤ created <
 * `until`, either end open) reopened as redelivery reopens one, in one statement along the endpoint's
 * `(endpoint_id, created_at)` index. Returns how many; the caller wakes the relay, which enqueues them.
 */
export async function reopenFailedDeliveries(
  db: DbOrTx,
  input: { endpointId: string; since?: Date; until?: Date; now: Date },
): Promise<number> {
  const reopened = await db
    .update(webhookDeliveries)
    .set(reopenedState(input.now))
    .where(
      and(
        eq(webhookDeliveries.endpointId, input.endpointId),
        eq(webhookDeliveries.status, 'failed'),
        input.since ? gte(webhookDeliveries.createdAt, input.since) : undefined,
        input.until ? lt(webhookDeliveries.createdAt, input.until) : undefined,
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return reopened.length;
}

/** The attempts of these deliveries, oldest first, by delivery. */
export async function attemptsOf(db: DbOrTx, deliveryIds: string[]): Promise<Map<string, WebhookAttempt[]>> {
  const byDelivery = new Map<string, WebhookAttempt[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.id));
  for (const row of rows) byDelivery.get(row.deliveryId)?.push(row);
  return byDelivery;
}

/** Deliveries with their attempts, for deliveries whose event type is known. */
export async function withAttempts(
  db: DbOrTx,
  rows: { delivery: WebhookDelivery; eventType: string }[],
): Promise<DeliveryView[]> {
  const attempts = await attemptsOf(
    db,
    rows.map((row) => row.delivery.id),
  );
  return rows.map((row) => ({ ...row, attempts: attempts.get(row.delivery.id) ?? [] }));
}

/** A delivery's place in the endpoint's list, for a cursor; undefined when it is no delivery to the endpoint. */
export const deliveryPlace = (db: DbOrTx, endpointId: string, id: string) =>
  placeIn(db, webhookDeliveries, id, eq(webhookDeliveries.endpointId, endpointId));

/**
 * An endpoint's deliveries, newest first (from a cursor, from its place on), each with its event's type and its
 * attempts.
 */
export async function listEndpointDeliveries(
  db: DbOrTx,
  filter: { endpointId: string; limit: number; offset: number; keyset?: Keyset },
): Promise<{ rows: DeliveryView[]; total: number; travel?: Travel }> {
  const read = keysetRead(webhookDeliveries, filter.keyset, filter.limit);
  const [rows, total] = await Promise.all([
    db
      .select({ delivery: webhookDeliveries, eventType: events.type })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(and(eq(webhookDeliveries.endpointId, filter.endpointId), read.where))
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(filter.offset),
    keptCount(db, { list: countedLists.webhookDeliveries, scope: filter.endpointId }),
  ]);
  const page = keysetPage(rows, filter.limit, filter.keyset);
  return { rows: await withAttempts(db, page.rows), total, travel: page.travel };
}

/** A delivery's place in the event's list, for a cursor; undefined when it is no delivery of the event. */
export const eventDeliveryPlace = (db: DbOrTx, eventId: string, id: string) =>
  placeIn(db, webhookDeliveries, id, eq(webhookDeliveries.eventId, eventId));

/**
 * An event's deliveries (one per endpoint it went to, deleted endpoints' included), newest first, each with its
 * attempts. Found along the `(event_id, endpoint_id)` unique index and counted there: an event has at most one
 * delivery per endpoint of its account, whatever the history.
 */
export async function listEventDeliveries(
  db: DbOrTx,
  filter: { eventId: string; eventType: string; limit: number; offset: number; keyset?: Keyset },
): Promise<{ rows: DeliveryView[]; total: number; travel?: Travel }> {
  const read = keysetRead(webhookDeliveries, filter.keyset, filter.limit);
  const ofEvent = eq(webhookDeliveries.eventId, filter.eventId);
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(webhookDeliveries)
      .where(and(ofEvent, read.where))
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(filter.offset),
    db.select({ total: count() }).from(webhookDeliveries).where(ofEvent),
  ]);
  const page = keysetPage(rows, filter.limit, filter.keyset);
  const views = await withAttempts(
    db,
    page.rows.map((delivery) => ({ delivery, eventType: filter.eventType })),
  );
  return { rows: views, total: counted?.total ?? 0, travel: page.travel };
}
