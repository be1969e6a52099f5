import { describe, expect, it } from 'vitest';
import { testConfig } from '../config';
import type { Db } from '../db';
import { signInternal } from '../http/internal-auth';
import { createServiceApp } from '../http/service-app';
import { createLogger } from '../logger';
import { createMetrics } from './metrics';
import { metricsResponse } from './serve';

const config = testConfig();
/** No database: the pool's watch finds a client whose probe answers at once, and nothing else is asked of it. */
const noDatabase = { $client: { unsafe: async () => [] } } as unknown as Db;
const log = createLogger({ level: 'silent' });
const caller = { accountId: 'acct_metrics1', appId: 'app_1', clockOffsetSeconds: 0, requestId: 'req_metrics' };

/** A service app as a main.ts serves it (standalone) or as `npm start` binds it in-process. */
function serviceApp(standalone: boolean) {
  const metrics = createMetrics();
  const app = createServiceApp({ config, db: noDatabase, log, metrics, standalone }, 'test');
  app.get('/things/:id', (c) => c.json({ id: c.req.param('id') }));
  return { app, metrics };
}

describe('metricsResponse', () => {
  it("answers the process's registry in Prometheus' text format (no cluster here)", async () => {
    const metrics = createMetrics();
    metrics.payments.inc({ type: 'tokenv3', outcome: 'approved' });
    const response = await metricsResponse(metrics);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(metrics.registry.contentType);
    expect(await response.text()).toContain('pps_payments_total{type="tokenv3",outcome="approved"} 1');
  });
});

describe('a service on its own port', () => {
  it('serves /metrics without the signature and counts its requests by route template, never by id', async () => {
    const { app } = serviceApp(true);
    const path = '/things/thing_secretish0001';
    const signed = await app.request(path, { headers: signInternal(config.INTERNAL_SECRET, caller, 'GET', path) });
    expect(signed.status).toBe(200);
    expect((await app.request('/things/x')).status).toBe(401); // its routes still need the gateway

    const scraped = await app.request('/metrics');
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(text).toMatch(
      /pps_http_request_duration_seconds_count\{method="GET",route="\/things\/:id",status="200"\} 1/,
    );
    // Refused before any route ran: the middleware's template, still one bounded value.
    expect(text).toMatch(/pps_http_request_duration_seconds_count\{method="GET",route="\/\*",status="401"\} 1/);
    expect(text).not.toContain('thing_secretish0001');
    expect(text).not.toContain(caller.accountId);
  });

  it('bound in-process (not standalone) leaves /metrics and the timing to the gateway', async () => {
    const { app, metrics } = serviceApp(false);
    expect((await app.request('/metrics')).status).toBe(401);
    const counted = await metrics.registry.getSingleMetric('pps_http_request_duration_seconds')?.get();
    expect(counted?.values).toEqual([]);
  });
});
