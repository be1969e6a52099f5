import type { ChildProcess } from 'node:child_process';
import { createDatabaseFromTemplate, queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, processTracker, stopProcess } from '../processes';
import { getFresh, total } from '../prometheus';
import { waitFor } from '../wait';

/**
 * `/metrics` under `WEB_CONCURRENCY=2` (`npm start`'s entry, node:cluster): the workers share the port, so
 * consecutive scrapes (each on a connection of its own) land on different workers, and each must answer with the
 * sum over both; a counter that read one worker at a time would seem to go back and forth.
 */

const processes = processTracker();
let primary: ChildProcess;
let drop: (() => Promise<void>) | undefined;
let base: string;

const scrape = async () => {
  const response = await getFresh(`${base}/metrics`);
  expect(response.status).toBe(200);
  return response.text;
};
const requestsCounted = (text: string) => total(text, 'pps_http_request_duration_seconds_count');

beforeAll(async () => {
  const database = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  drop = database.drop;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  primary = processes.spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    WEB_CONCURRENCY: '2',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_BASE_URL: base,
    DATABASE_URL: database.url,
    QUEUE_PREFIX: queuePrefix('cluster', inject('runId')),
    DEMO_ACCOUNT: 'false',
    DEMO_PORT: '0',
  });
  // Both workers up and summed (the primary says how many workers a scrape covers).
  await waitFor(
    async () => {
      const response = await getFresh(`${base}/metrics`);
      return response.status === 200 && total(response.text, 'pps_cluster_workers') === 2;
    },
    { timeoutMs: 80_000, what: 'two workers in the scrape', retryOnError: true },
  );
}, 90_000);

afterAll(async () => {
  if (primary) await stopProcess(primary, 'SIGTERM');
  await processes.killAll();
  await drop?.();
});

describe('metrics of a cluster', () => {
  it('every scrape, whichever worker takes it, counts the requests of both workers and never goes down', async () => {
    const before = requestsCounted(await scrape());
    const requests = 20;
    for (let index = 0; index < requests; index++) {
      expect((await getFresh(`${base}/healthz`)).status).toBe(200);
    }

    let previous = before + requests;
    const scheduled: number[] = [];
    for (let index = 0; index < 6; index++) {
      const text = await scrape();
      expect(total(text, 'pps_cluster_workers')).toBe(2);
      const counted = requestsCounted(text);
      expect(counted).toBeGreaterThanOrEqual(previous);
      previous = counted;
      // Per route too: the /healthz requests of both workers, whichever answered this scrape.
      expect(total(text, 'pps_http_request_duration_seconds_count', { route: '/healthz' })).toBe(requests);
      // Default metrics aggregate by their own rule: one start time would be meaningless, so there is none.
      expect(total(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(text).not.toContain('process_start_time_seconds ');
      // Queue depths are read from Redis by every worker alike: taken once, not added up. The four maintenance
      // schedulers (the hourly key cleanup, the payment recovery every minute, the request log's retention, the
      // health sample every minute) keep one delayed job each for their next run, never two.
      const delayed = total(text, 'pps_queue_jobs', { queue: 'maintenance', state: 'delayed' });
      expect(delayed).toBeLessThanOrEqual(4);
      scheduled.push(delayed);
    }
    expect(scheduled).toContain(4);
  });
});
