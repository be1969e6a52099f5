import { clusterMetricsText } from './cluster';
import type { Metrics } from './metrics';

/**
 * `GET /metrics` of every process (gateway, payments, merchants, settlement's METRICS_PORT, `npm start`): the
 * process's registry in Prometheus' text format, or under WEB_CONCURRENCY the sum over every worker. Unauthenticated,
 * like `/healthz`: labels carry methods, route templates, statuses, payment types and queue names, never an id.
 * A cluster scrape that cannot see every worker answers 503, so Prometheus records a failed scrape rather than a
 * sum that dropped.
 */
export async function metricsResponse(metrics: Metrics): Promise<Response> {
  try {
    const text = await clusterMetricsText(metrics.registry);
    return new Response(text, { headers: { 'content-type': metrics.registry.contentType } });
  } catch (error) {
    return new Response(`metrics unavailable: ${(error as Error).message}\n`, {
      status: 503,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  }
}
