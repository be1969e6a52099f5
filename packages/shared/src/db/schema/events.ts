import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/**
 * The transactional outbox: every state change writes its event here in the same transaction. An event row is
 * written once and never updated; what the relay has still to fan out is queued beside it (`unrelayedEvents`).
 */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    type: text('type').notNull(),
    resourceType: text('resource_type').notNull(),
    resourceId: text('resource_id').notNull(),
    /** Grows per resource so receivers can order events. */
    sequence: integer('sequence').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    requestId: text('request_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('events_account_created_idx').on(t.accountId, t.createdAt),
    // `GET /events?type=`: one type's events newest first, without reading the account's others.
    index('events_account_type_created_idx').on(t.accountId, t.type, t.createdAt, t.id),
    index('events_resource_idx').on(t.resourceId, t.sequence),
  ],
);

/**
 * The relay's queue: one narrow row per event not fanned out yet, written with the event and deleted by the relay
 * in the transaction that makes its deliveries. Marking the event itself (`relayed_at`, until migration 0009)
 * rewrote every event row and its indexes once more (docs/decisions.md, "Performance of the payment path"). Event
 * ids sort by creation, so the queue is read in id order.
 */
export const unrelayedEvents = pgTable('unrelayed_events', {
  eventId: text('event_id').primaryKey(),
});

/**
 * The last event sequence of each resource. Writers bump it with one upsert per batch, which also serialises
 * the writers of a resource on its row (no max() over the events, no advisory lock).
 */
export const eventSequences = pgTable('event_sequences', {
  resourceId: text('resource_id').primaryKey(),
  lastSequence: integer('last_sequence').notNull(),
});

export type EventRow = typeof events.$inferSelect;
export type NewEventRow = typeof events.$inferInsert;
