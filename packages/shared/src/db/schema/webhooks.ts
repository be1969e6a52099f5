import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ApiVersion } from '../../versions/versions';
import { accounts } from './accounts';
import { timestamps, ts } from './columns';

/**
 * A webhook endpoint of an account (docs/design.md). Owned by the payments service. The signing secret is kept
 * encrypted; after a rotation the previous one keeps signing until `previousSecretExpiresAt`.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    url: text('url').notNull(),
    /** Event types, or `["*"]` for all. */
    events: jsonb('events').$type<string[]>().notNull(),
    description: text('description'),
    enabled: boolean('enabled').notNull().default(true),
    /**
     * The API version its events are delivered in (docs/api.md, Versions): set when it is made (given, else its
     * account's pin), moved by PUT. Events are stored in the newest shape and rendered in it at delivery.
     */
    apiVersion: text('api_version').$type<ApiVersion>().notNull().default('2026-11-29'),
    disabledReason: text('disabled_reason'),
    /**
     * Since when every attempt to this endpoint has failed (null while it succeeds, or has had no attempt since it
     * was made or turned back on): past WEBHOOK_DISABLE_AFTER_DAYS it is disabled. Written by the attempt that
     * changes it only, so a healthy endpoint costs its deliveries no write.
     */
    failingSince: ts('failing_since'),
    secretEnc: text('secret_enc').notNull(),
    previousSecretEnc: text('previous_secret_enc'),
    previousSecretExpiresAt: ts('previous_secret_expires_at'),
    deletedAt: ts('deleted_at'),
    ...timestamps,
  },
  (t) => [index('webhook_endpoints_account_idx').on(t.accountId, t.createdAt)],
);

export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/**
 * One event to one endpoint. Owned by the webhooks service (the relay creates them, the delivery workers
 * complete them). Unique per endpoint and event, so a relay that runs twice creates nothing twice.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    eventId: text('event_id').notNull(),
    status: text('status').$type<DeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** Redeliveries asked for: each one enqueues a job of its own (`<delivery id>-r<n>`). */
    redeliveries: integer('redeliveries').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    nextAttemptAt: ts('next_attempt_at'),
    /** Set when the relay has enqueued this delivery's job; null means the relay still has to (new, or reopened). */
    enqueuedAt: ts('enqueued_at'),
    /**
     * Set while the relay's process delivers the first attempt itself (no job): past it with the delivery still
     * pending and no job alive, the lease sweep enqueues one (the process died, or could not hand it on).
     */
    leasedUntil: ts('leased_until'),
    completedAt: ts('completed_at'),
    ...timestamps,
  },
  (t) => [
    // Event first: it also serves every look-up by event (an event's deliveries, retention's pending check), so the
    // deliveries need no index of the event alone.
    uniqueIndex('webhook_deliveries_event_endpoint_uq').on(t.eventId, t.endpointId),
    index('webhook_deliveries_endpoint_created_idx').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_to_enqueue_idx').on(t.createdAt).where(sql`enqueued_at is null and status = 'pending'`),
    // The stale sweep's: pending deliveries by when their job went out (those in flight, not every one ever made).
    // Leased ones are the lease sweep's, so a first attempt in flight has no entry here.
    index('webhook_deliveries_in_flight_idx')
      .on(t.enqueuedAt)
      .where(sql`status = 'pending' and enqueued_at is not null and leased_until is null`),
    // The lease sweep's: the deliveries leased to a process (the first attempts in flight there).
    index('webhook_deliveries_leased_idx').on(t.leasedUntil).where(sql`leased_until is not null`),
  ],
);

/** Every delivery attempt: status code (null when no answer), latency, an excerpt of the error. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.id)],
);

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
