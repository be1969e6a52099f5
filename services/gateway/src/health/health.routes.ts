import {
  checkReadiness,
  databaseCheck,
  notConfigured,
  type ReadinessChecks,
  readinessResponse,
  redisCheck,
} from '@pps/shared/health';
import { type Metrics, metricsResponse } from '@pps/shared/metrics';
import type { Env, Hono } from 'hono';
import type { GatewayDeps } from '../deps';
import type { RateLimits } from '../limits/rate-limits';

/**
 * The gateway's readiness checks: the database answers and is migrated (required); Redis is reported. The console's
 * health page runs the same ones, so it says what `/readyz` says.
 */
export const gatewayReadinessChecks = (deps: Pick<GatewayDeps, 'db' | 'redis'>): ReadinessChecks => ({
  required: { database: databaseCheck(deps.db.$client) },
  reported: { redis: deps.redis ? redisCheck(deps.redis) : notConfigured },
});

/**
 * /healthz: the process is up. /readyz: the database answers and is migrated; Redis is reported, not required (no
 * payment needs it), and so are the rate limits (`failing open` while Redis does not answer them).
 */
export function registerHealthRoutes<E extends Env>(
  app: Hono<E>,
  deps: GatewayDeps,
  metrics: Metrics,
  limits?: Pick<RateLimits, 'status'>,
) {
  const checks = gatewayReadinessChecks(deps);
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async () => {
    const readiness = await checkReadiness(checks);
    const limitStatus = limits?.status() ?? 'off';
    const rateLimits = limitStatus === 'ok' && readiness.checks.redis !== 'ok' ? 'failing open' : limitStatus;
    return readinessResponse({ ...readiness, checks: { ...readiness.checks, rateLimits } });
  });
  app.get('/metrics', () => metricsResponse(metrics));
}
