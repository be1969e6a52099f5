import { Hono } from 'hono';
import { type Config, rolePortVariables, type WorkerRole, workerMetricsPort } from '../config';
import type { Db } from '../db';
import { databaseCheck, type ReadinessChecks, readyz, redisCheck } from '../health';
import { notFoundHandler, requestId } from '../http';
import type { Logger } from '../logger';
import { type Metrics, metricsResponse } from '../metrics';
import type { RedisClient } from '../queues/redis';
import { listenOn } from './ports';
import { closeServer } from './serve';

/**
 * A worker process's only HTTP (settlement, webhooks): `GET /metrics` (what this process did, process metrics),
 * `GET /healthz` and `GET /readyz`, on its role's port (SETTLEMENT_METRICS_PORT, WEBHOOKS_METRICS_PORT, or
 * METRICS_PORT for this process; 0: none). Ready needs both the database and Redis: the workers are BullMQ's, and
 * take no job without it. A port already taken ends the process with a line naming the variable to change: run on
 * without it, the process would answer no probe, and a probe of that port would reach whatever holds it.
 */
export async function serveWorkerMetrics(deps: {
  config: Config;
  log: Logger;
  metrics: Metrics;
  /** Who serves: picks the default port, and names the log line. */
  role: WorkerRole;
  db: Db;
  /** The connection the workers use. */
  redis: RedisClient;
}): Promise<{ port: number; close: () => Promise<unknown> } | undefined> {
  const { config, log, metrics } = deps;
  const wanted = workerMetricsPort(config, deps.role);
  if (wanted === 0) return undefined;
  const checks: ReadinessChecks = {
    required: { database: databaseCheck(deps.db.$client), redis: redisCheck(deps.redis) },
  };
  const app = new Hono();
  app.use('*', requestId());
  app.get('/metrics', () => metricsResponse(metrics));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', () => readyz(checks));
  app.notFound(notFoundHandler());
  const variable = config.METRICS_PORT === undefined ? rolePortVariables[deps.role] : 'METRICS_PORT';
  const { server, port } = await listenOn(app.fetch, { port: wanted, variable, config, log });
  log.info({ host: config.HOST, port }, `${deps.role} metrics listening`);
  return { port, close: () => closeServer(server, { log }) };
}
