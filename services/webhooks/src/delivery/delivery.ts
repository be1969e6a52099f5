import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import type { Config } from '@pps/shared/config';
import type { FieldCipher } from '@pps/shared/crypto';
import { Batcher, type Db, rowMapper, schema, send, texts } from '@pps/shared/db';
import type { Metrics } from '@pps/shared/metrics';
import { renderEventPayloadText } from '@pps/shared/versions';
import { eq } from 'drizzle-orm';
import { Agent } from 'undici';
import { z } from 'zod';
import { isSuccess, post } from './post';
import {
  hostOf,
  isPrivateAddress,
  privateTargetError,
  privateTargetProblem,
  refusingPrivateTargets,
} from './url-guard';

const { events, webhookDeliveries, webhookEndpoints } = schema;

export type DeliveryDeps = {
  config: Config;
  db: Db;
  cipher: FieldCipher;
  metrics?: Metrics;
  /** The process's connections to receivers (`receiverAgent`), kept alive between deliveries. */
  agent: Agent;
};

/** In production, unless WEBHOOK_ALLOW_PRIVATE: deliveries never reach a private, link-local or loopback address. */
export const refusesPrivateTargets = (config: Config) =>
  config.NODE_ENV === 'production' && !config.WEBHOOK_ALLOW_PRIVATE;

/**
 * Connections to receivers, kept alive between deliveries (a TLS handshake per delivery would cost more than the
 * delivery). No cap per origin: the endpoint slots cap what is in flight per endpoint, and endpoints sharing a host
 * (a platform's several, by path) must not wait on each other's connections. When private targets are refused, a
 * host name is resolved and checked as each connection is made (`refusingPrivateTargets`): the address checked is
 * the one connected to, so DNS that changes between a check and the connection (rebinding) cannot point a delivery
 * inward, and a delivery over a connection already open costs no lookup.
 */
export const receiverAgent = (config: Config) =>
  new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
    ...(refusesPrivateTargets(config) ? { connect: { lookup: refusingPrivateTargets() } } : {}),
  });

/** A receiver's URL whose host is a private IP address, when such are refused (a host name is checked on connect). */
function privateAddressProblem(config: Config, url: string): string | null {
  if (!refusesPrivateTargets(config)) return null;
  const host = hostOf(url);
  return isIP(host) && isPrivateAddress(host) ? privateTargetProblem(host) : null;
}

/** What one attempt came to: done (success, 410, endpoint gone, final failure), or try again in `retryInMs`. */
export type AttemptOutcome =
  | { kind: 'done'; status: 'succeeded' | 'failed' | 'skipped' }
  | { kind: 'retry'; retryInMs: number; reason: string };

const EXCERPT = 300;
const DAY_MS = 86_400_000;
const excerpt = (text: string) => (text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text);

/** The wait before retry n (1-based) by the schedule, ±20 % jitter; a `Retry-After` given by the receiver wins. */
export function retryDelayMs(config: Config, retry: number, retryAfter: string | null, now = Date.now()): number {
  const fromHeader = parseRetryAfter(retryAfter, now);
  if (fromHeader !== null) return fromHeader;
  const schedule = config.WEBHOOK_RETRY_SCHEDULE_SECONDS;
  const base = (schedule[Math.min(retry, schedule.length) - 1] ?? 0) * 1000;
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** `Retry-After` as seconds or an HTTP date, capped at a day; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(seconds)) return null;
  return Math.min(Math.max(0, seconds), 86_400_000);
}

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
export function deliveryIo(deps: DeliveryDeps) {
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

// ── one attempt ───────────────────────────────────────────────────────────────────────────────────────────────

/** Signing keys by the encrypted secret they were opened from: a rotation changes the ciphertext, so a new one. */
const signingKeys = new Map<string, Buffer>();

function signingKeyOf(cipher: FieldCipher, secretEnc: string): Buffer {
  let key = signingKeys.get(secretEnc);
  if (!key) {
    if (signingKeys.size >= 10_000) signingKeys.clear();
    key = Buffer.from(cipher.decrypt(secretEnc).replace(/^whsec_/, ''), 'base64');
    signingKeys.set(secretEnc, key);
  }
  return key;
}

/**
 * The `webhook-signature` header: the current secret's signature, and the previous one's while it still signs.
 * Each is Standard Webhooks' `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` under the secret's bytes,
 * as the `standardwebhooks` package signs; signed here with Node's HMAC, since that package's pure-JavaScript
 * SHA-256 was 4 % of a delivery's CPU. Every test verifies what it receives with the package.
 */
function signatures(deps: Pick<DeliveryDeps, 'cipher'>, loaded: LoadedDelivery, at: Date) {
  const secrets = [loaded.secretEnc];
  if (loaded.previousSecretEnc && loaded.previousSecretExpiresAt && loaded.previousSecretExpiresAt > at) {
    secrets.push(loaded.previousSecretEnc);
  }
  const signed = `${loaded.eventId}.${Math.floor(at.getTime() / 1000)}.${loaded.body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', signingKeyOf(deps.cipher, secret)).update(signed).digest('base64')}`)
    .join(' ');
}

/** What the receiver answered, or why there was no answer. */
type Sent = {
  /** False when no request went out (a target refused in production). */
  requested: boolean;
  statusCode: number | null;
  error: string | null;
  retryAfter: string | null;
  latencyMs: number;
};

/** No request went out: the target is refused. */
const refused = (problem: string): Sent => ({
  requested: false,
  statusCode: null,
  error: problem,
  retryAfter: null,
  latencyMs: 0,
});

/**
 * Sends the delivery (docs/design.md): signed with Standard Webhooks (`webhook-id` is the event id, the same on
 * every retry), POSTed with `WEBHOOK_TIMEOUT_MS` and without following redirects over the process's keep-alive
 * connections (`post`). In production a private target is refused without a request: an IP address here, a host
 * name where the agent connects (`receiverAgent`).
 */
export async function sendDelivery(
  deps: Pick<DeliveryDeps, 'config' | 'cipher' | 'agent'>,
  loaded: LoadedDelivery,
): Promise<Sent> {
  const started = performance.now();
  const targetProblem = privateAddressProblem(deps.config, loaded.url);
  if (targetProblem) return refused(targetProblem);
  const at = new Date();
  try {
    const answered = await post(deps.agent, loaded.url, {
      headers: {
        'content-type': 'application/json',
        'user-agent': 'pps-webhooks/1',
        'webhook-id': loaded.eventId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signatures(deps, loaded, at),
        'pps-version': loaded.apiVersion,
      },
      body: loaded.body,
      timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
    });
    const { statusCode, bodyStart } = answered;
    const ok = isSuccess(statusCode);
    return {
      requested: true,
      statusCode,
      error: ok ? null : excerpt(`HTTP ${statusCode}${bodyStart ? `: ${bodyStart}` : ''}`),
      retryAfter: answered.retryAfter,
      latencyMs: Math.round(performance.now() - started),
    };
  } catch (failure) {
    const inward = privateTargetError(failure);
    if (inward) return refused(inward.message);
    const error =
      (failure as Error).name === 'TimeoutError'
        ? `timed out after ${deps.config.WEBHOOK_TIMEOUT_MS} ms`
        : excerpt(((failure as Error & { cause?: Error }).cause ?? (failure as Error)).message);
    return {
      requested: true,
      statusCode: null,
      error,
      retryAfter: null,
      latencyMs: Math.round(performance.now() - started),
    };
  }
}

/**
 * What an attempt's answer decides, and the record of it: 2xx succeeded; 410 fails the delivery (its endpoint is
 * disabled by the caller); anything else retries by the schedule, or fails for good on the final attempt. The
 * database counts attempts (a job re-enqueued after a Redis loss starts again at zero in BullMQ). A `direct` attempt
 * (no job) hands its retry back to the relay to enqueue.
 */
export function decideAttempt(config: Config, loaded: LoadedDelivery, sent: Sent, direct: boolean, now = new Date()) {
  const attempt = loaded.attempts + 1;
  const finalAttempt = loaded.attempts >= config.WEBHOOK_RETRY_SCHEDULE_SECONDS.length;
  const ok = isSuccess(sent.statusCode);
  const gone = sent.statusCode === 410;
  const retryInMs = ok || gone || finalAttempt ? null : retryDelayMs(config, attempt, sent.retryAfter);
  const record: AttemptRecord = {
    deliveryId: loaded.id,
    endpointId: loaded.endpointId,
    attempt,
    statusCode: sent.statusCode,
    latencyMs: sent.latencyMs,
    error: sent.error,
    status: retryInMs === null ? (ok ? 'succeeded' : 'failed') : 'pending',
    nextAttemptAt: retryInMs === null ? null : new Date(now.getTime() + retryInMs),
    completedAt: retryInMs === null ? now : null,
    ok,
    requeue: direct && retryInMs !== null,
  };
  const outcome: AttemptOutcome =
    retryInMs !== null
      ? { kind: 'retry', retryInMs, reason: sent.error ?? 'not delivered' }
      : { kind: 'done', status: ok ? 'succeeded' : 'failed' };
  return { record, outcome, gone };
}

/** A delivery whose endpoint was disabled or deleted meanwhile: failed without a request. */
export async function failWithoutSending(deps: DeliveryDeps, deliveryId: string, reason: string): Promise<void> {
  const now = new Date();
  await deps.db
    .update(webhookDeliveries)
    .set({
      status: 'failed',
      lastError: reason,
      completedAt: now,
      nextAttemptAt: null,
      leasedUntil: null,
      updatedAt: now,
    })
    .where(eq(webhookDeliveries.id, deliveryId));
}

/** The receiver answered 410 Gone: its endpoint is disabled, with the reason. */
export async function disableGoneEndpoint(deps: DeliveryDeps, endpointId: string): Promise<void> {
  const now = new Date();
  await deps.db
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: `The receiver answered 410 Gone on ${now.toISOString()}`, updatedAt: now })
    .where(eq(webhookEndpoints.id, endpointId));
}
