import { OpenAPIHono } from '@hono/zod-openapi';
import { type Clock, offsetClock, systemClock } from '../clock';
import type { Config } from '../config/config';
import { type Db, watchPool } from '../db';
import { databaseCheck, readyz } from '../health';
import { type Logger, moduleLogger } from '../logger';
import { type Metrics, metricsResponse } from '../metrics';
import type { ServiceContext } from './context';
import { deadline, shedding } from './deadline';
import { callerOf } from './internal-auth';
import { bodyChecks, bodySizeGuard, requestId } from './middleware';
import { notFoundHandler, onError, validationHook } from './on-error';

export type ServiceEnv = { Variables: { ctx: ServiceContext; requestId: string } };
export type ServiceApp = OpenAPIHono<ServiceEnv>;

export type ServiceDeps = {
  config: Config;
  db: Db;
  /** Where GET requests read (`Database.readDb`); `db` when absent. */
  readDb?: Db;
  log: Logger;
  /** Real time; tests inject a manual clock. The account's sandbox offset is added per request. */
  clock?: Clock;
  /** Shared with the gateway when bound in-process, so `/metrics` shows the services' counters too. */
  metrics?: Metrics;
  /**
   * Served on a port of its own (the service's main.ts): the app then serves `GET /metrics` itself, unsigned like
   * the gateway's, and records its requests' durations. Bound in-process the gateway does both, once.
   */
  standalone?: boolean;
};

/** How much sooner than the gateway a service answers at the deadline. */
const SERVICE_DEADLINE_LEAD_MS = 250;

/**
 * A service's Hono app with the house middleware: request id, the gateway's signed context (401
 * without it), JSON body rules, the validation hook and the one error mapper. Routes come after.
 */
export function createServiceApp(deps: ServiceDeps, name: string): ServiceApp {
  const log = moduleLogger(deps.log, name);
  const base = deps.clock ?? systemClock;
  const app = new OpenAPIHono<ServiceEnv>({ defaultHook: validationHook as never });
  app.onError(onError(log));
  app.notFound(notFoundHandler(() => registeredRoutes(app)));
  // Liveness and readiness for a container healthcheck (docker-compose.yml), before the signature check: they reveal
  // nothing but check names and states. Readiness asks the pool GETs read on, which no burst of writes queues behind.
  // Redis is not asked: neither service uses it.
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  const database = databaseCheck((deps.readDb ?? deps.db).$client);
  app.get('/readyz', () => readyz({ required: { database } }));
  app.use('*', requestId());
  // Answered within the deadline, a little before the gateway's own so the answer that names the cause arrives
  // first; writes refused at once while the database does not answer (docs/design.md, Deadlines).
  const watch = watchPool(deps.db.$client);
  app.use('*', deadline({ ms: deps.config.REQUEST_DEADLINE_MS - SERVICE_DEADLINE_LEAD_MS, watch }));
  app.use('*', shedding({ deadlineMs: deps.config.REQUEST_DEADLINE_MS, watch }));
  if (deps.standalone && deps.metrics) {
    const metrics = deps.metrics;
    app.use('*', async (c, next) => {
      const started = performance.now();
      await next();
      // The route's template (`/payments/:id`), never the raw path: bounded label values.
      const labels = { method: c.req.method, route: c.req.routePath, status: String(c.res.status) };
      metrics.httpDuration.observe(labels, (performance.now() - started) / 1000);
    });
    // Before the signature check: Prometheus scrapes each process directly, as it does the gateway.
    app.get('/metrics', () => metricsResponse(metrics));
  }
  app.use('*', async (c, next) => {
    // The signature covers the path as sent (percent-encoding kept), the same bytes the gateway signed.
    const caller = callerOf(
      deps.config.INTERNAL_SECRET,
      c.req.raw,
      c.req.method,
      () => new URL(c.req.url).pathname,
      base.now().getTime(),
    );
    c.set('ctx', {
      ...caller,
      config: deps.config,
      // A GET changes nothing: it reads on the read pool, never queued behind writes (docs/decisions.md).
      db: c.req.method === 'GET' && deps.readDb ? deps.readDb : deps.db,
      clock: offsetClock(caller.clockOffsetSeconds, base),
      log: log.child({ requestId: caller.requestId, accountId: caller.accountId }),
    });
    await next();
  });
  app.use('*', bodySizeGuard());
  app.use('*', bodyChecks());
  return app;
}

/** The routes an app declared through the contract (`app.openapi`), for the 405 check. */
export const registeredRoutes = (app: OpenAPIHono<never> | OpenAPIHono<ServiceEnv>) =>
  app.openAPIRegistry.definitions.flatMap((definition) =>
    definition.type === 'route' ? [{ method: definition.route.method, path: definition.route.path }] : [],
  );
