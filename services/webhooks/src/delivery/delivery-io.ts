import type { Config } from '@pps/shared/config';
import { Batcher, type Db, rowMapper, schema, send, texts } from '@pps/shared/db';
import { renderEventPayloadText } from '@pps/shared/versions';
import { z } from 'zod';

// A process's reads and writes of webhook deliveries, each batched across the attempts running at once: what an
// attempt needs, loaded, and what it came to, recorded (delivery.ts makes the attempts).

const { events, webhookDeliveries, webhookEndpoints } = schema;
const DAY_MS = 86_400_000;

// ── loading, batched ──────────────────────────────────────────────────────────────────────────────────────────

/**
 * What an attempt needs of its delivery, endpoint and event, for any number of deliveries in one statement. The
 * payload comes as the text it is stored as (the newest version's shape), which is the body sent to an endpoint on
 * the newest version: never parsed and written out again. An endpoint on an older version is sent it rendered in
 * that version (`renderEventPayloadText`), and the signature is over what is sent.
 */
const LOAD = `
  select d.id, d.status, d.attempts, d.endpoint_id, d.event_id, e.created_at,
    e.payload::text as body, w.url, w.enabled, w.deleted_at, w.secret_enc, w.previous_secret_enc,
    w.previous_secret_expires_at, w.api_version
  from webhook_deliveries d
  join webhook_endpoints w on w.id = d.endpoint_id
  join events e on e.id = d.event_id
  where d.id = any($1::text[])`;

const loadedRow = rowMapper({
  id: webhookDeliveries.id,
  status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts,
  endpointId: webhookDeliveries.endpointId,
  eventId: webhookDeliveries.eventId,
  // The event's (the only `created_at` selected).
  eventCreatedAt: events.createdAt,
  body: z.string(),
  url: webhookEndpoints.url,
  enabled: webhookEndpoints.enabled,
  deletedAt: webhookEndpoints.deletedAt,
  secretEnc: webhookEndpoints.secretEnc,
  previousSecretEnc: webhookEndpoints.previousSecretEnc,
  previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
  apiVersion: webhookEndpoints.apiVersion,
});
export type LoadedDelivery = ReturnType<typeof loadedRow>;

/** What attempts of these deliveries need, in one statement (those no longer there are left out). */
const loadDeliveries = async (db: Db, ids: string[]): Promise<LoadedDelivery[]> =>
  (await send(db, LOAD, [ids])).map((row) => {
    const loaded = loadedRow(row);
    return { ...loaded, body: renderEventPayloadText(loaded.body, loaded.apiVersion) };
  });

// ── recording, batched ────────────────────────────────────────────────────────────────────────────────────────

/** An attempt's result as written: the attempt row, the delivery's new state, and whether it reached a 2xx. */
export type AttemptRecord = {
  deliveryId: string;
  endpointId: string;
  attempt: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: Date | null;
  completedAt: Date | null;
  ok: boolean;
  /**
   * A retry with no job to carry it (a first attempt made directly by the relay's process): the delivery goes back
   * to the relay, which enqueues its retry for `nextAttemptAt`.
   */
  requeue: boolean;
};

/**
 * Any number of attempts in one statement: their rows, each delivery's new state, and each endpoint's failing
 * streak, written only when it starts (a failure with none running), ends (a success) or has lasted
 * WEBHOOK_DISABLE_AFTER_DAYS ($3, with $2 the instant that long ago): then the endpoint is disabled, as a 410
 * disables it. An endpoint with a success among the batch's attempts counts as succeeding. A recorded attempt ends
 * the delivery's lease; a retry to requeue is handed back to the relay (`enqueued_at` null). $1 is now; $4 on, one
 * text array per column of `item`.
 */
const RECORD = `
  with item as (
    select id, attempt::int, status_code::int, latency_ms::int, error, status, next_attempt_at::timestamptz,
      completed_at::timestamptz, endpoint_id, ok::boolean, requeue::boolean
    from unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
      $12::text[], $13::text[], $14::text[])
      as item(id, attempt, status_code, latency_ms, error, status, next_attempt_at, completed_at, endpoint_id, ok,
        requeue)
  ), attempt as (
    insert into webhook_attempts (delivery_id, attempt, status_code, latency_ms, error)
    select id, attempt, status_code, latency_ms, error from item
  ), outcome as (
    select endpoint_id, bool_or(ok) as ok from item group by endpoint_id
  ), streak as (
    update webhook_endpoints w
    set failing_since = case when o.ok then null else coalesce(w.failing_since, $1::timestamptz) end,
      enabled = w.enabled and (o.ok or coalesce(w.failing_since > $2::timestamptz, true)),
      disabled_reason = case when not o.ok and w.failing_since <= $2::timestamptz and w.enabled
        then 'No delivery has succeeded since ' || to_char(w.failing_since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
          || ' (WEBHOOK_DISABLE_AFTER_DAYS: ' || $3::text || ')'
        else w.disabled_reason end,
      updated_at = $1::timestamptz
    from outcome o
    where w.id = o.endpoint_id and (
      (o.ok and w.failing_since is not null)
      or (not o.ok and (w.failing_since is null or (w.enabled and w.failing_since <= $2::timestamptz))))
  )
  update webhook_deliveries d
  set attempts = d.attempts + 1, last_status_code = item.status_code, last_error = item.error, status = item.status,
    next_attempt_at = item.next_attempt_at, completed_at = item.completed_at, updated_at = $1::timestamptz,
    leased_until = null, enqueued_at = case when item.requeue then null else d.enqueued_at end
  from item where d.id = item.id`;

/**
 * A process's reads and writes of deliveries, batched across the jobs running at once (group reads, group commit:
 * `Batcher`): one statement loads many deliveries' endpoints and events, one records many attempts. A job waits
 * for its own batch, so an attempt is recorded before its job completes.
 */
export function deliveryIo(deps: { db: Db; config: Config }) {
  const options = { maxBatch: 200, maxWaitMs: 0, maxInFlight: 1 };
  const loads = new Batcher<string, LoadedDelivery | undefined>(async (ids) => {
    const byId = new Map((await loadDeliveries(deps.db, ids)).map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  }, options);
  const records = new Batcher<AttemptRecord, void>(async (items) => {
    const now = new Date();
    const disableBefore = new Date(now.getTime() - deps.config.WEBHOOK_DISABLE_AFTER_DAYS * DAY_MS);
    const column = (pick: (item: AttemptRecord) => string | number | boolean | Date | null) =>
      texts(
        items.map((item) => {
          const value = pick(item);
          return value instanceof Date ? value.toISOString() : typeof value === 'boolean' ? String(value) : value;
        }),
      );
    await send(deps.db, RECORD, [
      now.toISOString(),
      disableBefore.toISOString(),
      String(deps.config.WEBHOOK_DISABLE_AFTER_DAYS),
      column((item) => item.deliveryId),
      column((item) => item.attempt),
      column((item) => item.statusCode),
      column((item) => item.latencyMs),
      column((item) => item.error),
      column((item) => item.status),
      column((item) => item.nextAttemptAt),
      column((item) => item.completedAt),
      column((item) => item.endpointId),
      column((item) => item.ok),
      column((item) => item.requeue),
    ]);
    return items.map(() => undefined);
  }, options);
  return {
    load: (deliveryId: string) => loads.submit(deliveryId),
    record: (attempt: AttemptRecord) => records.submit(attempt),
  };
}
export type DeliveryIo = ReturnType<typeof deliveryIo>;
