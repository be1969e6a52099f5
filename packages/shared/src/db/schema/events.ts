import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/**
 * The transactional outbox: every state change writes its event here in the same transaction.
 * The relay moves unrelayed rows to BullMQ; `relayedAt` marks them done.
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
    relayedAt: ts('relayed_at'),
  },
  (t) => [
    index('events_account_created_idx').on(t.accountId, t.createdAt),
    index('events_resource_idx').on(t.resourceId, t.sequence),
    index('events_unrelayed_idx').on(t.createdAt).where(sql`relayed_at is null`),
  ],
);

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
