import { checkReadiness, databaseCheck, notConfigured, readinessResponse, redisCheck } from '@pps/shared/health';
import { type Metrics, metricsResponse } from '@pps/shared/metrics';
import type { Env, Hono } from 'hono';
import type { GatewayDeps } from '../deps';
import type { RateLimits } from '../limits/rate-limits';

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
  const checks = {
    required: { database: databaseCheck(deps.db.$client) },
    reported: { redis: deps.redis ? redisCheck(deps.redis) : notConfigured },
  };
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async () => {
    const readiness = await checkReadiness(checks);
    const limitStatus = limits?.status() ?? 'off';
    const rateLimits = limitStatus === 'ok' && readiness.checks.redis !== 'ok' ? 'failing open' : limitStatus;
    return readinessResponse({ ...readiness, checks: { ...readiness.checks, rateLimits } });
  });
  app.get('/metrics', () => metricsResponse(metrics));
}
