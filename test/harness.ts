import { AuthCache, inProcessUpstream, startRequestLog } from '@pps/gateway';
import { createGatewayApp } from '@pps/gateway/app';
import { createMerchantsApp } from '@pps/merchants/app';
import type { Processor } from '@pps/payments';
import { createPaymentsApp } from '@pps/payments/app';
import { startSettlement } from '@pps/settlement';
import { type Clock, manualClock, systemClock } from '@pps/shared/clock';
import { type Config, testConfig } from '@pps/shared/config';
import { createDatabase, type Database } from '@pps/shared/db';
import { createLogger, type Logger } from '@pps/shared/logger';
import { createMetrics } from '@pps/shared/metrics';
import { createSettlementTrigger } from '@pps/shared/queues';
import { createDatabaseFromTemplate, queuePrefix } from '@pps/shared/testing';
import { startWebhooks } from '@pps/webhooks';
import type Redis from 'ioredis';
import { inject } from 'vitest';

export type ApiResponse<T = any> = { status: number; body: T; headers: Headers };

export type Credentials = {
  accountId: string;
  apiKey: string;
  appId: string;
  appKey: string;
  appToken: string;
  /** The four headers of an authenticated call. */
  headers: Record<string, string>;
};

type CallOptions = { body?: unknown; headers?: Record<string, string>; as?: Credentials; raw?: BodyInit };

/**
 * The whole service in this process against a fresh database of its own (cloned from the migrated
 * template) and a BullMQ prefix of its own. `clock` is real time unless a test asks for a manual one.
 */
export async function createTestStack(
  options: {
    manualClock?: boolean;
    env?: Record<string, string>;
    redis?: Redis;
    /** Run the settlement workers in this process, and enqueue a pass when an account's clock moves. */
    settlement?: boolean;
    /** Run the event pipeline in this process: the outbox relay and the webhook delivery workers. */
    webhooks?: boolean;
    /** The logger of every part (silent by default); a test that reads the log output passes its own. */
    log?: Logger;
    /** Sees every statement the stack sends to PostgreSQL, with its parameters. */
    onQuery?: (query: string, params: readonly unknown[]) => void;
    /** Connections in the pool (8 by default). */
    poolSize?: number;
    /** The payment service's processor (the sandbox by default, with SANDBOX_LATENCY_MS). */
    processor?: Processor;
    /**
     * Record the accounts' requests (`GET /requests`): the writer thread on a connection of its own to the stack's
     * database, as in production, or to `databaseUrl` (one that does not answer, say); `capacity` bounds what waits.
     */
    requestLog?: boolean | { databaseUrl?: string; capacity?: number };
  } = {},
) {
  const runId = inject('runId');
  const { url, drop } = await createDatabaseFromTemplate(inject('templateDatabase'), runId);
  const config: Config = testConfig({
    DATABASE_URL: url,
    QUEUE_PREFIX: queuePrefix('test', runId),
    ...options.env,
  });
  // A read pool of its own, read-only, as in production: a GET that wrote would fail every test that makes it.
  const database: Database = createDatabase(url, {
    max: options.poolSize ?? 8,
    readMax: 2,
    onQuery: options.onQuery,
    statementTimeoutMs: config.REQUEST_DEADLINE_MS,
  });
  const log = options.log ?? createLogger({ level: 'silent' });
  const clock = options.manualClock ? manualClock(new Date()) : undefined;
  const realClock: Clock = clock ?? systemClock;
  const metrics = createMetrics();
  const serviceDeps = { config, db: database.db, readDb: database.readDb, log, clock: realClock, metrics };
  const merchants = createMerchantsApp(serviceDeps);
  const payments = createPaymentsApp({ ...serviceDeps, processor: options.processor });
  const settlement = options.settlement ? await startSettlement({ config, db: database.db, log, metrics }) : undefined;
  const webhooks = options.webhooks ? await startWebhooks({ config, db: database.db, log, metrics }) : undefined;
  const trigger = options.settlement ? createSettlementTrigger(config, log) : undefined;
  const requestLogOptions = options.requestLog === true ? {} : options.requestLog || undefined;
  const requestLog = requestLogOptions ? startRequestLog({ config, log, metrics, ...requestLogOptions }) : undefined;
  const gatewayDeps = {
    config,
    db: database.db,
    log,
    clock: realClock,
    auth: new AuthCache(database.db, config.AUTH_CACHE_TTL_MS, () => realClock.now().getTime()),
    upstreams: {
      merchants: inProcessUpstream('merchants', merchants),
      payments: inProcessUpstream('payments', payments),
    },
    // Reported by /readyz; the gateway's rate limits count in it (without one they are off).
    redis: options.redis,
    onClockAdvanced: trigger ? (accountId: string) => trigger.settleAccount(accountId) : undefined,
    queues:
      settlement || webhooks
        ? [...Object.values(settlement?.queues ?? {}), ...Object.values(webhooks?.queues ?? {})]
        : undefined,
    requestLog,
  };
  const gateway = createGatewayApp(gatewayDeps, metrics);

  async function call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(options.as?.headers ?? {}), ...(options.headers ?? {}) };
    let body: BodyInit | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await gateway.request(path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  const admin = { authorization: `Bearer ${config.ADMIN_TOKEN}` };

  /** An onboarded account with app key, app token and the four headers, in one call. */
  async function createAccount(name = 'Acme Platform'): Promise<Credentials> {
    const created = await call('POST', '/admin/accounts', {
      headers: admin,
      body: { data: { type: 'accounts', attributes: { name } } },
    });
    if (created.status !== 201) throw new Error(`account creation failed: ${JSON.stringify(created.body)}`);
    const { apiKey, appId } = created.body.data.attributes;
    const key = await call('POST', '/auth/key', {
      headers: { 'x-api-key': apiKey },
      body: { data: { type: 'auth', attributes: { appId } } },
    });
    const appKey = key.body.data.attributes.appKey;
    const token = await call('POST', '/auth/token', {
      headers: { 'x-api-key': apiKey },
      body: { data: { type: 'auth', attributes: { appKey } } },
    });
    if (token.status !== 201)
      throw new Error(`token creation failed: ${JSON.stringify(token.body)} (key: ${JSON.stringify(key.body)})`);
    const appToken = token.body.data.attributes.appToken;
    return {
      accountId: created.body.data.id,
      apiKey,
      appId,
      appKey,
      appToken,
      headers: { authorization: `Bearer ${appToken}`, 'x-api-key': apiKey, appid: appId },
    };
  }

  return {
    config,
    db: database.db,
    sql: database.sql,
    clock,
    gateway,
    /**
     * A second gateway over the same database, services, Redis and prefix (another gateway process, in effect), with
     * `overrides` of its deps (a request log of its own, say).
     */
    anotherGateway: (overrides: Partial<Parameters<typeof createGatewayApp>[0]> = {}) =>
      createGatewayApp({ ...gatewayDeps, ...overrides }, createMetrics()),
    call,
    admin,
    createAccount,
    settlement,
    webhooks,
    metrics,
    /** The request log's writer, when `requestLog` was asked for. */
    requestLog,
    close: async () => {
      await requestLog?.close();
      await trigger?.close();
      await settlement?.close();
      await webhooks?.close();
      await database.close();
      await drop();
    },
  };
}

export type TestStack = Awaited<ReturnType<typeof createTestStack>>;

/** Asserts the JSON:API error envelope and returns the first error. */
export function expectError(
  response: ApiResponse,
  status: number,
  code: string,
  pointer?: string,
): { status: string; code: string; title: string; detail: string; source?: { pointer?: string } } {
  const errors = response.body?.errors;
  if (response.status !== status || !Array.isArray(errors)) {
    throw new Error(`expected ${status} ${code}, got ${response.status}: ${JSON.stringify(response.body)}`);
  }
  const match = errors.find(
    (error: { code: string; source?: { pointer?: string } }) =>
      error.code === code && (pointer === undefined || error.source?.pointer === pointer),
  );
  if (!match) throw new Error(`no error ${code} ${pointer ?? ''} in ${JSON.stringify(errors)}`);
  if (match.status !== String(status) || typeof match.title !== 'string' || typeof match.detail !== 'string') {
    throw new Error(`malformed error object ${JSON.stringify(match)}`);
  }
  if (typeof response.body.meta?.requestId !== 'string') throw new Error('error document without meta.requestId');
  return match;
}
