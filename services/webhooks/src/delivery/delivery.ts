import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import type { Config } from '@pps/shared/config';
import type { FieldCipher } from '@pps/shared/crypto';
import { type Db, schema } from '@pps/shared/db';
import type { Metrics } from '@pps/shared/metrics';
import { eq } from 'drizzle-orm';
import { Agent } from 'undici';
import type { AttemptRecord, LoadedDelivery } from './delivery-io';
import { isSuccess, post } from './post';
import {
  hostOf,
  isPrivateAddress,
  privateTargetError,
  privateTargetProblem,
  refusingPrivateTargets,
} from './url-guard';

const { webhookDeliveries, webhookEndpoints } = schema;

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
