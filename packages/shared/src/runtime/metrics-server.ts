import { Hono } from 'hono';
import { type Config, type WorkerRole, workerMetricsPort } from '../config';
import { notFoundHandler, requestId } from '../http';
import type { Logger } from '../logger';
import { type Metrics, metricsResponse } from '../metrics';
import { closeServer, listen } from './serve';

/**
 * A worker process's only HTTP (settlement, webhooks): `GET /metrics` (what this process did, process metrics) and
 * `GET /healthz`, on its role's port (SETTLEMENT_METRICS_PORT, WEBHOOKS_METRICS_PORT, or METRICS_PORT for this
 * process; 0: none). A port already taken (several processes of one role on one host, all on its default) is logged
 * and the workers run on without it: their work matters more than being scraped.
 */
export async function serveWorkerMetrics(deps: {
  config: Config;
  log: Logger;
  metrics: Metrics;
  /** Who serves: picks the default port, and names the log line. */
  role: WorkerRole;
}): Promise<{ port: number; close: () => Promise<unknown> } | undefined> {
  const { config, log, metrics } = deps;
  const wanted = workerMetricsPort(config, deps.role);
  if (wanted === 0) return undefined;
  const app = new Hono();
  app.use('*', requestId());
  app.get('/metrics', () => metricsResponse(metrics));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.notFound(notFoundHandler());
  try {
    const { server, port } = await listen(app.fetch, wanted, config.HOST, config);
    log.info({ host: config.HOST, port }, `${deps.role} metrics listening`);
    return { port, close: () => closeServer(server, { log }) };
  } catch (error) {
    log.warn(
      { err: error, port: wanted },
      'metrics port unavailable: this process serves no /metrics (give each process its own METRICS_PORT, or 0)',
    );
    return undefined;
  }
}
