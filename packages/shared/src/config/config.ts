import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { isDatabaseUrl } from '../db/database-url';

/**
 * Development defaults let `npm start` work on a fresh clone. Each one is well known, so production
 * refuses to start with any of them, and development prints a warning naming the variables it defaulted.
 */
export const DEV_DEFAULTS = {
  ADMIN_TOKEN: 'dev-admin-token',
  INTERNAL_SECRET: 'dev-internal-secret-change-me-0123456789',
  TOKEN_SIGNING_KEYS: 'k1:dev-token-signing-key-change-me-0123456789',
  // 32 zero-free bytes, base64: development only.
  DATA_ENCRYPTION_KEYS: 'd1:ZGV2LWRhdGEta2V5LWNoYW5nZS1tZS0wMTIzNDU2Nzg=',
  BLIND_INDEX_KEY: 'dev-blind-index-key-change-me-0123456789',
} as const;

type SecretName = keyof typeof DEV_DEFAULTS;

const keyRing = (minBytes: number, encoding: 'utf8' | 'base64') =>
  z.string().transform((value, ctx) => {
    const keys = value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const at = part.indexOf(':');
        return at > 0 ? { id: part.slice(0, at), secret: Buffer.from(part.slice(at + 1), encoding) } : null;
      });
    if (keys.length === 0 || keys.some((key) => key === null || key.secret.length < minBytes)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected comma-separated "id:secret" pairs, each secret at least ${minBytes} bytes (${encoding})`,
      });
      return z.NEVER;
    }
    return keys as { id: string; secret: Buffer }[];
  });

const port = z.coerce.number().int().min(0).max(65535);
const bool = z.enum(['true', 'false']).transform((value) => value === 'true');

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * The address every HTTP server listens on: loopback unless NODE_ENV=production (set after parsing), so a
   * development run's well-known admin token, its NACHA files and its unauthenticated /metrics stay off the LAN.
   */
  HOST: z.string().trim().min(1).optional(),
  PORT: port.default(8080),
  /** The services run alone; 8081 is the demo shop's (`DEMO_PORT`, PORT + 1), so none of the defaults clash. */
  PAYMENTS_PORT: port.default(8082),
  MERCHANTS_PORT: port.default(8083),
  /**
   * A settlement or webhooks process's `/metrics`, `/healthz` and `/readyz` (they have no other HTTP port), each role
   * on its own default so both run side by side on one host; 0 is off. 9464 is the usual Prometheus exporter port.
   * The HTTP services serve the three on their own port and ignore these.
   */
  SETTLEMENT_METRICS_PORT: port.default(9464),
  WEBHOOKS_METRICS_PORT: port.default(9465),
  /** Overrides the role's metrics port for this one process (several settlement processes on one host, say). */
  METRICS_PORT: port.optional(),
  /** HTTP server limits (docs/decisions.md, Server limits). Headers must arrive within this, else 408 (slowloris). */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(10_000),
  /** The whole request, headers and body, must arrive within this, else 408. At least HTTP_HEADERS_TIMEOUT_MS. */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** Idle keep-alive connections close after this: longer than a load balancer's idle timeout (60 s is usual). */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(65_000),
  /** Total bytes of request headers; over it, 431. */
  HTTP_MAX_HEADER_SIZE: z.coerce.number().int().min(4096).max(1_048_576).default(16_384),
  /** On SIGTERM, in-flight HTTP requests get this long to finish; then their connections are closed forcibly. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(25_000),
  /**
   * One host, or several for failover (`postgres://u@h1:5432,h2:5433/pps?target_session_attrs=primary`: sessions
   * open on whichever is the primary; docs/design.md, Past one machine).
   */
  DATABASE_URL: z
    .string()
    .refine(isDatabaseUrl, 'must be postgres://[user[:password]@]host[:port][,host[:port]…]/database[?options]')
    .default('postgres://postgres@127.0.0.1:5432/pps'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * Read-only connections the services' GET requests use, apart from the pool writes queue on, so a read never waits
   * behind a burst of payments' batches; 0: reads share the main pool.
   */
  DATABASE_READ_POOL_SIZE: z.coerce.number().int().min(0).max(200).default(4),
  /**
   * A connection attempt to PostgreSQL gives up after this (and the request waiting on it answers 503
   * `database_unavailable`): an unreachable database never holds a request for long.
   */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  /**
   * How long a request may take before it is answered 503 with Retry-After, whatever it waits on (docs/design.md,
   * Deadlines). Below common client timeouts (30 s and more), so a client hears a clear answer rather than timing out
   * blind. The database's own limits follow it: each connection's statement, lock and idle-in-transaction timeouts.
   */
  REQUEST_DEADLINE_MS: z.coerce.number().int().min(1000).max(120_000).default(10_000),
  /** `npm start`'s worker processes (node:cluster), each with its own pool; `auto`: one per core. */
  WEB_CONCURRENCY: z
    .union([z.literal('auto'), z.coerce.number().int().min(1).max(64)])
    .default(1)
    .transform((count) => (count === 'auto' ? availableParallelism() : count)),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  /**
   * A Redis Cluster's nodes (`host:port,host:port,…`; a few are enough, the rest are discovered): when set, every
   * Redis client is a cluster client and REDIS_URL is not used (its user and password, if any, still are).
   */
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(/^[^\s,:]+:\d+(,[^\s,:]+:\d+)*$/, 'must be host:port,host:port,…')
    .optional(),
  /**
   * What every Redis key of the platform starts with. Each queue's keys are hash-tagged `{<prefix>:<queue>}`, so a
   * queue's keys share one Redis Cluster slot and the queues spread over the cluster's nodes: no braces here.
   */
  QUEUE_PREFIX: z
    .string()
    .min(1)
    .regex(/^[^{}]+$/, 'must not contain { or }: each queue adds its own hash tag')
    .default('pps'),
  /** Defaults to http://localhost:<PORT> (set after parsing, so it follows PORT). */
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .optional()
    .transform((url) => url?.replace(/\/+$/, '')),
  PAYMENTS_URL: z.string().url().optional(),
  MERCHANTS_URL: z.string().url().optional(),
  ADMIN_TOKEN: z.string().min(16).default(DEV_DEFAULTS.ADMIN_TOKEN),
  INTERNAL_SECRET: z.string().min(32).default(DEV_DEFAULTS.INTERNAL_SECRET),
  TOKEN_SIGNING_KEYS: keyRing(32, 'utf8').prefault(DEV_DEFAULTS.TOKEN_SIGNING_KEYS),
  DATA_ENCRYPTION_KEYS: keyRing(32, 'base64').prefault(DEV_DEFAULTS.DATA_ENCRYPTION_KEYS),
  BLIND_INDEX_KEY: z.string().min(32).default(DEV_DEFAULTS.BLIND_INDEX_KEY),
  APP_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(5000).default(5000),
  /**
   * Sustained requests per second per account at the gateway, bursts up to twice that; 0 turns the limit off.
   * Unset: 1000, but off in development (`npm start`), whose gateway only listens on loopback: a newcomer's load
   * test measures the platform, not the limit (docs/decisions.md, The default deployment at full speed).
   */
  RATE_LIMIT_RPS: z.coerce.number().int().min(0).max(1_000_000).optional(),
  /** Failed authentications per client address per minute before its attempts get 429; 0 turns the limit off. */
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(0).max(1_000_000).default(100),
  /** Reverse proxies in front of the gateway whose X-Forwarded-For entries are trusted for the client address. */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * The request log (docs/design.md, The request log): every API request of an account recorded, its bodies redacted,
   * for `GET /requests` and the console; written in batches after the answer, kept 30 days. false: nothing recorded.
   */
  REQUEST_LOG: bool.default(true),
  MIN_AMOUNT_CENTS: z.coerce.number().int().min(1).default(50),
  MAX_AMOUNT_CENTS: z.coerce.number().int().min(1).default(100_000_000),
  FEE_RATE_BASIS_POINTS: z.coerce.number().int().min(0).max(10_000).default(290),
  FEE_FIXED_CENTS: z.coerce.number().int().min(0).default(30),
  IDEMPOTENCY_TTL_DAYS: z.coerce.number().int().min(1).max(90).default(7),
  /** How long every sandbox processor answer waits (card authorisation, ACH debit): a real acquirer's latency. */
  SANDBOX_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /** A payment left `processing` (a crash between its phases) this long, in real time, is resolved by recovery. */
  PAYMENT_RECOVERY_AFTER_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /**
   * Group commit of new payments' outcomes (docs/design.md, The payment write path): a batch goes at this many
   * payments; 1 turns batching off (each payment its own commit).
   */
  GROUP_COMMIT_MAX_BATCH: z.coerce.number().int().min(1).max(1000).default(128),
  /**
   * How long a batch with room waits for payments known to be on their way to it (being checked, or at the
   * processor); 0, or none on its way: one event-loop turn. A lone payment never waits.
   */
  GROUP_COMMIT_WAIT_MS: z.coerce.number().int().min(0).max(100).default(2),
  /** Batches committing at once, per process (each holds one pooled connection while it commits). */
  GROUP_COMMIT_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(50).default(2),
  /**
   * New payments checked and claimed at once, per process; more wait their turn in memory, so a burst never queues
   * every other request's reads behind its own on the pool. The processor call is outside it. Unset: 48, but 128 in
   * development (`npm start`), where no burst of hundreds shares the process with reads that must stay fast, and a
   * claim batch is not cut to half the limit (docs/decisions.md, record 54).
   */
  PAYMENT_ADMISSION_LIMIT: z.coerce.number().int().min(1).max(10_000).optional(),
  /** How long a card authorization (`capture: false`) can be captured, in days of the account's clock. */
  CARD_AUTHORIZATION_DAYS: z.coerce.number().int().min(1).max(30).default(7),
  CARD_SETTLEMENT_BUSINESS_DAYS: z.coerce.number().int().min(0).max(30).default(1),
  ACH_SETTLEMENT_BUSINESS_DAYS: z.coerce.number().int().min(0).max(30).default(3),
  DEMO_ACCOUNT: bool.default(true),
  /** The demo shop of `npm start` (development only; docs/api.md, Checkout): its port, PORT + 1 when unset; 0 is off. */
  DEMO_PORT: port.optional(),
  /** Requests per client address per minute on the checkout's public routes (form, scripts, card POST); 0 is off. */
  CHECKOUT_ADDRESS_LIMIT: z.coerce.number().int().min(0).max(1_000_000).default(600),
  SETTLEMENT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  SETTLEMENT_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  SETTLEMENT_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** The least an automatic payout pays, in cents: a smaller (or negative) available balance is carried forward. */
  PAYOUT_MINIMUM: z.coerce.number().int().min(1).max(100_000_000).default(100),
  /**
   * Business days a merchant's available balance may stay below zero before the payout run debits its bank account
   * for it (an ACH debit in the day's NACHA file).
   */
  NEGATIVE_BALANCE_DEBIT_DAYS: z.coerce.number().int().min(1).max(60).default(5),
  /** What a chargeback costs the merchant besides the disputed amount, in cents; kept whatever the outcome. */
  DISPUTE_FEE_CENTS: z.coerce.number().int().min(0).max(100_000).default(1500),
  /** How often the payout run looks for merchants due (it pays each merchant at most once a business day). */
  PAYOUT_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** Merchants a payout run takes per transaction. */
  PAYOUT_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(1000),
  /** NACHA file header and batch fields of the platform as originator (sandbox values by default). */
  ACH_ODFI_ROUTING: z
    .string()
    .regex(/^\d{9}$/)
    .default('121000358'),
  ACH_DESTINATION_ROUTING: z
    .string()
    .regex(/^\d{9}$/)
    .default('091000019'),
  ACH_ORIGIN_NAME: z.string().min(1).max(23).default('PPS SANDBOX'),
  ACH_DESTINATION_NAME: z.string().min(1).max(23).default('FED RESERVE SANDBOX'),
  ACH_COMPANY_ID: z.string().length(10).default('1000000001'),
  /**
   * The platform's own account at the ODFI, which a file of debits (negative balances' debits) credits with their
   * total in an offsetting entry, so the file is balanced (its credits equal its debits).
   */
  ACH_OFFSET_ACCOUNT_NUMBER: z
    .string()
    .regex(/^\d{1,17}$/)
    .default('000000000001'),
  /**
   * How long a webhook delivery's job may have gone out before the relay's stale sweep gives it another (a job a
   * Redis failover or restart lost); the sweep runs every quarter of it.
   */
  WEBHOOK_STALE_SECONDS: z.coerce.number().int().min(2).max(3600).default(120),
  /** Seconds before each retry of a webhook delivery (docs/design.md), each with ±20 % jitter. */
  WEBHOOK_RETRY_SCHEDULE_SECONDS: z
    .string()
    .default('5,300,1800,7200,18000,36000,36000')
    .transform((value, ctx) => {
      const seconds = value.split(',').map((part) => Number(part.trim()));
      if (seconds.some((n) => !Number.isFinite(n) || n < 0)) {
        ctx.addIssue({ code: 'custom', message: 'expected comma-separated seconds, e.g. 5,300,1800' });
        return z.NEVER;
      }
      return seconds;
    }),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /** Private, link-local and loopback webhook targets: refused in production unless this is true. */
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(50),
  /** Deliveries in flight to one endpoint per worker process, so a slow receiver never holds every slot. */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(10),
  /** BullMQ lock of a delivery job: a worker that dies mid-delivery has its job retried after about twice this. */
  WEBHOOK_JOB_LOCK_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce.number().min(0).max(168).default(24),
  /** An endpoint whose every delivery attempt has failed for this long is disabled, with a reason. */
  WEBHOOK_DISABLE_AFTER_DAYS: z.coerce.number().min(1).max(365).default(5),
  /** Days an event is kept, with its webhook deliveries and their attempts, once nothing is left to deliver. */
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** How often the outbox relay looks for events when no NOTIFY woke it. */
  OUTBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
});

export type Config = Omit<
  z.infer<typeof configSchema>,
  'HOST' | 'PUBLIC_BASE_URL' | 'DEMO_PORT' | 'RATE_LIMIT_RPS' | 'PAYMENT_ADMISSION_LIMIT'
> & {
  HOST: string;
  RATE_LIMIT_RPS: number;
  PAYMENT_ADMISSION_LIMIT: number;
  PUBLIC_BASE_URL: string;
  DEMO_PORT: number;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once. Throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config & { warnings: string[] } {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (parsed.data.HTTP_HEADERS_TIMEOUT_MS > parsed.data.HTTP_REQUEST_TIMEOUT_MS) {
    // Node refuses to create such a server; say so by name instead.
    throw new ConfigError('Invalid configuration:\n  HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  if (parsed.data.EVENT_RETENTION_DAYS < parsed.data.IDEMPOTENCY_TTL_DAYS) {
    // A key replays a new payment's 201 from the payment's first event: the event must outlive the key.
    throw new ConfigError('Invalid configuration:\n  EVENT_RETENTION_DAYS: must not be less than IDEMPOTENCY_TTL_DAYS');
  }
  const defaulted = (Object.keys(DEV_DEFAULTS) as SecretName[]).filter((name) => !env[name]);
  if (parsed.data.NODE_ENV === 'production' && defaulted.length > 0) {
    throw new ConfigError(`Invalid configuration: production refuses default secrets; set ${defaulted.join(', ')}`);
  }
  // One line, and a note rather than a warning: a development start is meant to use them (production refuses them).
  const warnings =
    defaulted.length === 0
      ? []
      : [`using the development defaults of ${defaulted.join(', ')} (fine here; production refuses them)`];
  const publicBaseUrl = parsed.data.PUBLIC_BASE_URL ?? `http://localhost:${parsed.data.PORT}`;
  const demoPort = parsed.data.DEMO_PORT ?? (parsed.data.PORT === 0 ? 0 : parsed.data.PORT + 1);
  const host = parsed.data.HOST ?? (parsed.data.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1');
  const development = parsed.data.NODE_ENV === 'development';
  const rateLimit = parsed.data.RATE_LIMIT_RPS ?? (development ? 0 : 1000);
  const admission = parsed.data.PAYMENT_ADMISSION_LIMIT ?? (development ? 128 : 48);
  return {
    ...parsed.data,
    HOST: host,
    RATE_LIMIT_RPS: rateLimit,
    PAYMENT_ADMISSION_LIMIT: admission,
    PUBLIC_BASE_URL: publicBaseUrl,
    DEMO_PORT: Math.min(demoPort, 65535),
    warnings,
  };
}

/** The processes whose only HTTP server is the one for `/metrics`, `/healthz` and `/readyz`. */
export type WorkerRole = 'settlement' | 'webhooks';

/** Where a settlement or webhooks process serves `/metrics` and its health: METRICS_PORT, else its role's port. */
export const workerMetricsPort = (config: Config, role: WorkerRole): number =>
  config.METRICS_PORT ?? (role === 'settlement' ? config.SETTLEMENT_METRICS_PORT : config.WEBHOOKS_METRICS_PORT);

/** The variable that sets each role's port: what to change when the port is taken. */
export const rolePortVariables = {
  gateway: 'PORT',
  payments: 'PAYMENTS_PORT',
  merchants: 'MERCHANTS_PORT',
  settlement: 'SETTLEMENT_METRICS_PORT',
  webhooks: 'WEBHOOKS_METRICS_PORT',
} as const;

/**
 * The port of each process role run apart (`npm run start:apart`, README), each serving its `/healthz`, `/readyz` and
 * `/metrics` there; distinct by default, and from the demo shop's (`DEMO_PORT`).
 */
export const rolePorts = (config: Config) => ({
  gateway: config.PORT,
  payments: config.PAYMENTS_PORT,
  merchants: config.MERCHANTS_PORT,
  settlement: workerMetricsPort(config, 'settlement'),
  webhooks: workerMetricsPort(config, 'webhooks'),
});

/** Convenience for tests: a config with overrides, no warnings printed. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...overrides });
}
