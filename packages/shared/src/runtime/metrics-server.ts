import { Hono } from 'hono';
import type { Config } from '../config';
import { notFoundHandler, requestId } from '../http';
import type { Logger } from '../logger';
import { type Metrics, metricsResponse } from '../metrics';
import { closeServer, listen } from './serve';

/**
 * A worker process's only HTTP (settlement, webhooks): `GET /metrics` (what this process did, process metrics) and
 * `GET /healthz`, on `port` (METRICS_PORT; 0: none). A port already taken (several worker processes on one host,
 * all on the default) is logged and the workers run on without it: their work matters more than being scraped.
 */
export async function serveWorkerMetrics(deps: {
  config: Config;
  log: Logger;
  metrics: Metrics;
  /** Who serves, for the log line. */
  name: string;
}): Promise<{ port: number; close: () => Promise<unknown> } | undefined> {
  const { config, log, metrics } = deps;
  if (config.METRICS_PORT === 0) return undefined;
  const app = new Hono();
  app.use('*', requestId());
  app.get('/metrics', () => metricsResponse(metrics));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.notFound(notFoundHandler());
  try {
    const { server, port } = await listen(app.fetch, config.METRICS_PORT, config.HOST, config);
    log.info({ host: config.HOST, port }, `${deps.name} metrics listening`);
    return { port, close: () => closeServer(server, { log }) };
  } catch (error) {
    log.warn(
      { err: error, port: config.METRICS_PORT },
      'metrics port unavailable: this process serves no /metrics (give each process its own METRICS_PORT, or 0)',
    );
    return undefined;
  }
}
