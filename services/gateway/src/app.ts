import { OpenAPIHono } from '@hono/zod-openapi';
import { allRoutes, serviceRoutes } from '@pps/shared/contract';
import { watchPool } from '@pps/shared/db';
import {
  bodyChecks,
  bodySizeGuard,
  deadline,
  notFoundHandler,
  OPERATOR_ACCOUNT_ID,
  onError,
  registeredRoutes,
  requestId,
  shedding,
  validationHook,
} from '@pps/shared/http';
import { moduleLogger } from '@pps/shared/logger';
import { createMetrics, type Metrics, registerQueueMetrics } from '@pps/shared/metrics';
import type { MiddlewareHandler } from 'hono';
import { registerAdminRoutes } from './admin/admin.routes';
import { authenticate } from './auth/authenticate';
import { registerAuthRoutes } from './auth-api/auth.routes';
import { registerChallengeRoutes } from './authentication/challenge.routes';
import { registerCheckoutRoutes } from './checkout/checkout.routes';
import { registerConsoleRoutes } from './console/console.routes';
import type { GatewayDeps, GatewayEnv } from './deps';
import { registerDocsRoutes } from './docs/docs.routes';
import { registerHealthRoutes } from './health/health.routes';
import { createRateLimits } from './limits/rate-limits';
import { forward } from './proxy/forward';
import { forwardedPrefixes } from './proxy/routing';
import { registerRequestRoutes } from './request-log/api/requests.routes';
import { recordRequests } from './request-log/run/recorder';
import { registerClockRoutes } from './sandbox/clock.routes';
import { versioned, versionedRoutes, versionHeader } from './versions/versioning';
import { registerVersionRoutes } from './versions/versions.routes';

const operatorCaller = (requestId: string) => ({
  accountId: OPERATOR_ACCOUNT_ID,
  appId: 'admin',
  clockOffsetSeconds: 0,
  requestId,
  apiKey: '',
  tokenExpiresAt: new Date(0),
  account: { id: OPERATOR_ACCOUNT_ID, name: 'operator', status: 'active' as const, clockOffsetSeconds: 0 },
});

/** The gateway: auth, the four-header check, routing to services, admin, sandbox clock, docs, health. */
export function createGatewayApp(deps: GatewayDeps, metrics: Metrics = createMetrics()) {
  const log = moduleLogger(deps.log, 'gateway');
  if (deps.queues) registerQueueMetrics(metrics, deps.queues);
  const app = new OpenAPIHono<GatewayEnv>({ defaultHook: validationHook as never });
  app.onError(onError(log));
  // 405 for the gateway's own paths; forwarded ones are answered by their service.
  app.notFound(notFoundHandler(() => registeredRoutes(app as never)));
  app.use('*', requestId());
  // A `PPS-Version` that is no version is refused before anything; every answer names its version.
  app.use('*', versionHeader());
  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    const status = c.res.status;
    metrics.httpDuration.observe({ method: c.req.method, route: c.req.routePath, status: String(status) }, seconds);
    // The access log: path only (no query string), the request id, never a header.
    log.info(
      { requestId: c.get('requestId'), method: c.req.method, path: c.req.path, status, ms: Math.round(seconds * 1000) },
      'request',
    );
  });
  // Every request an account made, recorded once answered (the writer does the rest, off the request path).
  if (deps.requestLog?.enabled) app.use('*', recordRequests(deps.requestLog));
  // Inside the logs, so they record the 503 a late request was answered (docs/design.md, Deadlines).
  const watch = watchPool(deps.db.$client);
  app.use('*', deadline({ ms: deps.config.REQUEST_DEADLINE_MS, watch }));
  app.use('*', shedding({ deadlineMs: deps.config.REQUEST_DEADLINE_MS, watch }));
  app.use('*', bodySizeGuard());
  // Content type and text are checked after authentication: on the gateway's own routes by each group once its
  // caller is known, on forwarded ones by the service (no second parse on that path).

  // Per account after authentication, per client address for failed authentications (admin calls are neither).
  const limits = createRateLimits({ config: deps.config, redis: deps.redis, log });
  const authenticated: MiddlewareHandler<GatewayEnv> = async (c, next) => {
    const signingKeys = deps.config.TOKEN_SIGNING_KEYS;
    const caller = await limits.authAttempt(c, () =>
      authenticate({ cache: deps.auth, signingKeys, clock: deps.clock }, c.req.raw.headers, c.get('requestId')),
    );
    c.set('caller', caller);
    // In the version the request asks for, else its account's (docs/api.md, Versions).
    await limits.perAccount(c, caller.accountId, () => versioned(c, versionRoutes, next));
  };
  const versionRoutes = versionedRoutes(allRoutes);

  registerHealthRoutes(app, deps, metrics, limits);
  registerDocsRoutes(app, allRoutes, deps.config.PUBLIC_BASE_URL);
  registerVersionRoutes(app, deps.config.PUBLIC_BASE_URL);
  registerAdminRoutes(app, deps);
  registerAuthRoutes(app, deps, authenticated, limits);
  app.use('/sandbox/*', authenticated, bodyChecks());
  registerClockRoutes(app, deps);
  registerRequestRoutes(app, { db: deps.db, baseUrl: deps.config.PUBLIC_BASE_URL }, authenticated);

  // The hosted checkout form, its scripts and its card POST (client secret): before the forwarded `/checkout`.
  registerCheckoutRoutes(app, deps, limits);
  // The hosted 3-D Secure challenge page: public, its token is its credential.
  registerChallengeRoutes(app, deps, limits);
  // The console: pages in the browser for the account signed in, or the operator (its own sessions, not the API's).
  registerConsoleRoutes(app, deps, limits);

  // Every other route of the contract to the service that answers it; ops' admin calls on merchants (status,
  // features) are the merchants service's writes, forwarded as the operator.
  for (const { prefix, service, asOperator } of forwardedPrefixes(serviceRoutes)) {
    const target = deps.upstreams[service];
    const handler = (c: Parameters<MiddlewareHandler<GatewayEnv>>[0]) => forward(c, target, { log });
    if (asOperator) {
      app.all(`${prefix}/*`, (c) => {
        c.set('caller', operatorCaller(c.get('requestId')));
        return handler(c);
      });
      continue;
    }
    app.all(prefix, authenticated, handler);
    app.all(`${prefix}/*`, authenticated, handler);
  }
  return app;
}

export type GatewayApp = ReturnType<typeof createGatewayApp>;
