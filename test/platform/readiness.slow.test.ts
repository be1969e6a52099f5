import { queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPrivatePostgres, type PrivatePostgres } from '../private-postgres';
import { type PrivateRedis, privateRedis } from '../private-redis';
import { freePort, processTracker } from '../processes';
import { getFresh } from '../prometheus';
import { waitFor } from '../wait';

/**
 * `GET /readyz` of each process role run apart, as an orchestrator's probe asks it: unauthenticated, on the role's own
 * port, check names and states only, within a second. The five roles share a PostgreSQL cluster and a Redis of this
 * test's own, which it stops under them: Redis down makes the BullMQ workers (settlement, webhooks) not ready and
 * leaves the gateway, payments and merchants ready (no payment needs Redis); the database down makes every role not
 * ready. Both come back, and so do the roles, without a restart.
 */

const roles = ['gateway', 'payments', 'merchants', 'settlement', 'webhooks'] as const;
type Role = (typeof roles)[number];

const processes = processTracker();
let pg: PrivatePostgres;
let redis: PrivateRedis;
const urls = {} as Record<Role, string>;

/** One /readyz, timed, on a connection of its own. */
async function readyz(role: Role) {
  const started = performance.now();
  const response = await getFresh(`${urls[role]}/readyz`);
  return { status: response.status, body: JSON.parse(response.text), ms: performance.now() - started };
}

/** Waits until every role in `expected` answers /readyz with that status and body, each answer within a second. */
async function expectReadiness(expected: Partial<Record<Role, { status: number; body: unknown }>>) {
  await Promise.all(
    Object.entries(expected).map(async ([role, want]) => {
      const last = await waitFor(() => readyz(role as Role), {
        what: `${role} /readyz ${JSON.stringify(want)}`,
        until: (got) => got.status === want.status && JSON.stringify(got.body) === JSON.stringify(want.body),
        retryOnError: true,
        timeoutMs: 20_000,
      });
      expect(last.ms, role).toBeLessThan(1000);
      // Asked again once settled: still so, still within a second.
      const again = await readyz(role as Role);
      expect({ status: again.status, body: again.body }, role).toEqual(want);
      expect(again.ms, role).toBeLessThan(1000);
    }),
  );
}

const ready = (checks: Record<string, string>) => ({ status: 200, body: { status: 'ready', checks } });
const notReady = (checks: Record<string, string>) => ({ status: 503, body: { status: 'not ready', checks } });

beforeAll(async () => {
  pg = await createPrivatePostgres();
  await pg.start();
  redis = privateRedis(processes, await freePort());
  await redis.start();
  const ports = Object.fromEntries(await Promise.all(roles.map(async (role) => [role, await freePort()] as const)));
  for (const role of roles) urls[role] = `http://127.0.0.1:${ports[role]}`;
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    DATABASE_URL: pg.url('pps'),
    REDIS_URL: redis.url,
    QUEUE_PREFIX: queuePrefix('ready', inject('runId')),
  };
  const start = (role: Role, variables: Record<string, string>) =>
    processes.spawn(process.execPath, ['--import', 'tsx', `services/${role}/src/main.ts`], { ...env, ...variables });
  start('payments', { PAYMENTS_PORT: String(ports.payments) });
  start('merchants', { MERCHANTS_PORT: String(ports.merchants) });
  start('settlement', { SETTLEMENT_METRICS_PORT: String(ports.settlement) });
  start('webhooks', { WEBHOOKS_METRICS_PORT: String(ports.webhooks) });
  start('gateway', { PORT: String(ports.gateway), PAYMENTS_URL: urls.payments, MERCHANTS_URL: urls.merchants });
  // Up (each has migrated, or waited for the first to, and listens), before anything is asked of their readiness.
  await Promise.all(
    roles.map((role) =>
      waitFor(async () => (await getFresh(`${urls[role]}/healthz`)).status === 200, {
        what: `${role} /healthz`,
        retryOnError: true,
        timeoutMs: 80_000,
      }),
    ),
  );
}, 120_000);

afterAll(async () => {
  await processes.killAll();
  await pg?.destroy();
});

describe('GET /readyz of every role', () => {
  it('is 200 while PostgreSQL and Redis answer; without Redis, 503 for the BullMQ workers alone', async () => {
    const everyRoleReady = {
      gateway: ready({ database: 'ok', redis: 'ok', rateLimits: 'ok' }),
      payments: ready({ database: 'ok' }),
      merchants: ready({ database: 'ok' }),
      settlement: ready({ database: 'ok', redis: 'ok' }),
      webhooks: ready({ database: 'ok', redis: 'ok' }),
    };
    await expectReadiness(everyRoleReady);

    await redis.stop();
    await expectReadiness({
      gateway: ready({ database: 'ok', redis: 'unreachable', rateLimits: 'failing open' }),
      payments: ready({ database: 'ok' }),
      merchants: ready({ database: 'ok' }),
      settlement: notReady({ database: 'ok', redis: 'unreachable' }),
      webhooks: notReady({ database: 'ok', redis: 'unreachable' }),
    });

    await redis.start();
    await expectReadiness(everyRoleReady);
  }, 120_000);

  it('is 503 on every role while the database is down, within a second, and 200 once it is back', async () => {
    await pg.stop();
    await expectReadiness({
      gateway: notReady({ database: 'unreachable', redis: 'ok', rateLimits: 'ok' }),
      payments: notReady({ database: 'unreachable' }),
      merchants: notReady({ database: 'unreachable' }),
      settlement: notReady({ database: 'unreachable', redis: 'ok' }),
      webhooks: notReady({ database: 'unreachable', redis: 'ok' }),
    });

    await pg.start();
    await expectReadiness({
      gateway: ready({ database: 'ok', redis: 'ok', rateLimits: 'ok' }),
      payments: ready({ database: 'ok' }),
      merchants: ready({ database: 'ok' }),
      settlement: ready({ database: 'ok', redis: 'ok' }),
      webhooks: ready({ database: 'ok', redis: 'ok' }),
    });
  }, 120_000);
});
