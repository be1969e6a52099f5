import type { Config } from '@pps/shared/config';
import { notFoundHandler, requestId } from '@pps/shared/http';
import type { Logger } from '@pps/shared/logger';
import { type Metrics, metricsResponse } from '@pps/shared/metrics';
import { closeServer, listen } from '@pps/shared/runtime';
import { Hono } from 'hono';

/**
 * A settlement process's only HTTP: `GET /metrics` (its passes, the records they settled or returned, process metrics)
 * and `GET /healthz`, on METRICS_PORT (0: none). A port already taken (several settlement processes on one host,
 * all on the default) is logged and the workers run on without it: settling matters more than being scraped.
 */
export async function serveSettlementMetrics(deps: {
  config: Config;
  log: Logger;
  metrics: Metrics;
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
    log.info({ host: config.HOST, port }, 'settlement metrics listening');
    return { port, close: () => closeServer(server, { log }) };
  } catch (error) {
    log.warn(
      { err: error, port: config.METRICS_PORT },
      'metrics port unavailable: this process serves no /metrics (give each process its own METRICS_PORT, or 0)',
    );
    return undefined;
  }
}
