import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_FOLDER, migrationsApplied } from '@pps/shared/db';
import { type Metrics, metricsResponse } from '@pps/shared/metrics';
import type { Env, Hono } from 'hono';
import type { GatewayDeps } from '../deps';
import type { RateLimits } from '../limits/rate-limits';

const expectedMigrations = () =>
  (JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries
    .length;

const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms))]);

/**
 * /healthz: the process is up. /readyz: the database answers and is migrated; Redis is reported, not required, and so
 * are the rate limits (`failing open` while Redis does not answer them).
 */
export function registerHealthRoutes<E extends Env>(
  app: Hono<E>,
  deps: GatewayDeps,
  metrics: Metrics,
  limits?: Pick<RateLimits, 'status'>,
) {
  const migrations = expectedMigrations();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const database = await withTimeout(migrationsApplied(deps.db.$client, migrations), 2000)
      .then((ok) => (ok ? 'ok' : 'migrations pending'))
      .catch(() => 'unreachable');
    const redis = deps.redis
      ? await withTimeout(deps.redis.ping(), 1000)
          .then(() => 'ok')
          .catch(() => 'unreachable')
      : 'not configured';
    const limitStatus = limits?.status() ?? 'off';
    const rateLimits = limitStatus === 'ok' && redis !== 'ok' ? 'failing open' : limitStatus;
    const ready = database === 'ok';
    return c.json(
      { status: ready ? 'ready' : 'not ready', checks: { database, redis, rateLimits } },
      ready ? 200 : 503,
    );
  });
  app.get('/metrics', () => metricsResponse(metrics));
}
