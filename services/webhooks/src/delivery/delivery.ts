import type { Config } from '@pps/shared/config';
import type { FieldCipher } from '@pps/shared/crypto';
import { type Db, schema } from '@pps/shared/db';
import type { Metrics } from '@pps/shared/metrics';
import { webhookTargetProblem } from '@pps/shared/webhooks';
import { eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';

const { events, webhookAttempts, webhookDeliveries, webhookEndpoints } = schema;

export type DeliveryDeps = { config: Config; db: Db; cipher: FieldCipher; metrics?: Metrics };

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

/** The `webhook-signature` header: the current secret's, and the previous one's while it still signs. */
function signatures(deps: DeliveryDeps, endpoint: schema.WebhookEndpoint, id: string, at: Date, body: string) {
  const secrets = [deps.cipher.decrypt(endpoint.secretEnc)];
  if (endpoint.previousSecretEnc && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > at) {
    secrets.push(deps.cipher.decrypt(endpoint.previousSecretEnc));
  }
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}

/**
 * One attempt of one delivery (docs/design.md): signs the event's payload with Standard Webhooks (`webhook-id` is the
 * event id, the same on every retry), POSTs it with a timeout and without following redirects, records the
 * attempt, and decides: 2xx succeeded; 410 disables the endpoint and fails the delivery; anything else retries
 * by the schedule, or fails for good on the final attempt. A delivery no longer pending, or whose endpoint was
 * deleted or disabled, is skipped, so a job that runs twice does no harm.
 */
export async function attemptDelivery(deps: DeliveryDeps, input: { deliveryId: string }): Promise<AttemptOutcome> {
  const [row] = await deps.db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints, event: events })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.id, input.deliveryId));
  if (row?.delivery.status !== 'pending') {
    deps.metrics?.webhookDeliveries.inc({ outcome: 'skipped' });
    return { kind: 'done', status: 'skipped' };
  }
  const { delivery, endpoint, event } = row;
  if (!endpoint.enabled || endpoint.deletedAt) {
    await finish(deps, delivery.id, 'failed', endpoint.deletedAt ? 'endpoint deleted' : 'endpoint disabled');
    deps.metrics?.webhookDeliveries.inc({ outcome: 'failed' });
    return { kind: 'done', status: 'failed' };
  }

  const attempt = delivery.attempts + 1;
  // The database counts attempts (a job re-enqueued after a Redis loss starts again at zero in BullMQ).
  const finalAttempt = delivery.attempts >= deps.config.WEBHOOK_RETRY_SCHEDULE_SECONDS.length;
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  let retryAfter: string | null = null;
  const targetProblem =
    deps.config.NODE_ENV === 'production'
      ? await webhookTargetProblem(endpoint.url, { allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE })
      : null;
  if (targetProblem) error = targetProblem;
  else {
    const body = JSON.stringify(event.payload);
    const at = new Date();
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(deps.config.WEBHOOK_TIMEOUT_MS),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'pps-webhooks/1',
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signatures(deps, endpoint, event.id, at, body),
        },
        body,
      });
      statusCode = response.status;
      retryAfter = response.headers.get('retry-after');
      const text = await response.text().catch(() => '');
      if (statusCode < 200 || statusCode >= 300) error = excerpt(`HTTP ${statusCode}${text ? `: ${text}` : ''}`);
    } catch (failure) {
      const name = (failure as Error).name;
      error =
        name === 'TimeoutError'
          ? `timed out after ${deps.config.WEBHOOK_TIMEOUT_MS} ms`
          : excerpt(((failure as Error & { cause?: Error }).cause ?? (failure as Error)).message);
    }
  }
  const latencyMs = Math.round(performance.now() - started);
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const gone = statusCode === 410;
  const retryInMs = ok || gone || finalAttempt ? null : retryDelayMs(deps.config, attempt, retryAfter);

  const now = new Date();
  const status = retryInMs === null ? (ok ? 'succeeded' : 'failed') : 'pending';
  const nextAttemptAt = retryInMs === null ? null : new Date(now.getTime() + retryInMs).toISOString();
  // The attempt, the endpoint's failing streak and the delivery's new state in one statement (atomic without a
  // transaction, one round trip). The endpoint row is written only when its streak starts, ends, or has lasted
  // WEBHOOK_DISABLE_AFTER_DAYS: then it is disabled, as a 410 disables it.
  const disableBefore = new Date(now.getTime() - deps.config.WEBHOOK_DISABLE_AFTER_DAYS * DAY_MS).toISOString();
  await deps.db.execute(sql`
    with attempt as (
      insert into ${webhookAttempts} (delivery_id, attempt, status_code, latency_ms, error)
      values (${delivery.id}, ${attempt}, ${statusCode}, ${latencyMs}, ${error})
    ), streak as (
      update ${webhookEndpoints}
      set failing_since = case when ${ok} then null else coalesce(failing_since, ${now.toISOString()}::timestamptz) end,
        enabled = enabled and (${ok} or coalesce(failing_since > ${disableBefore}::timestamptz, true)),
        disabled_reason = case when not ${ok} and failing_since <= ${disableBefore}::timestamptz and enabled
          then 'No delivery has succeeded since ' || to_char(failing_since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
            || ' (WEBHOOK_DISABLE_AFTER_DAYS: ' || ${deps.config.WEBHOOK_DISABLE_AFTER_DAYS}::text || ')'
          else disabled_reason end,
        updated_at = ${now.toISOString()}::timestamptz
      where id = ${endpoint.id} and (
        (${ok} and failing_since is not null)
        or (not ${ok} and (failing_since is null or (enabled and failing_since <= ${disableBefore}::timestamptz))))
    )
    update ${webhookDeliveries}
    set attempts = attempts + 1, last_status_code = ${statusCode}, last_error = ${error}, status = ${status},
      next_attempt_at = ${nextAttemptAt}::timestamptz, completed_at = ${retryInMs === null ? now.toISOString() : null}::timestamptz,
      updated_at = ${now.toISOString()}::timestamptz
    where id = ${delivery.id}`);
  if (gone) {
    await deps.db
      .update(webhookEndpoints)
      .set({ enabled: false, disabledReason: `The receiver answered 410 Gone on ${now.toISOString()}`, updatedAt: now })
      .where(eq(webhookEndpoints.id, endpoint.id));
  }
  if (!targetProblem) deps.metrics?.webhookAttemptDuration.observe(latencyMs / 1000);
  deps.metrics?.webhookDeliveries.inc({ outcome: retryInMs !== null ? 'retried' : ok ? 'succeeded' : 'failed' });
  if (ok) deps.metrics?.webhookLag.observe((now.getTime() - event.createdAt.getTime()) / 1000);
  if (retryInMs !== null) return { kind: 'retry', retryInMs, reason: error ?? 'not delivered' };
  return { kind: 'done', status: ok ? 'succeeded' : 'failed' };
}

async function finish(deps: DeliveryDeps, deliveryId: string, status: 'failed', reason: string) {
  const now = new Date();
  await deps.db
    .update(webhookDeliveries)
    .set({ status, lastError: reason, completedAt: now, nextAttemptAt: null, updatedAt: now })
    .where(eq(webhookDeliveries.id, deliveryId));
}
