import { queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newRequestId, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { freePort, processTracker } from '../processes';
import { getFresh, total } from '../prometheus';
import { waitFor } from '../wait';

/**
 * `/metrics` in the Compose layout: gateway, payments, merchants and settlement as separate processes (their
 * `npm run start:*` entry points), each scraped on its own port, each showing the work it did itself: the payment
 * in the payments process, the settlement pass and the record it settled in the settlement process (METRICS_PORT).
 * Account, merchant and card are made in this process on the same database; the payment and the clock move go
 * through the gateway process.
 */

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;
const urls = { gateway: '', payments: '', merchants: '', settlement: '' };
const processes = processTracker();

const start = (script: string, env: Record<string, string>) =>
  processes.spawn(process.execPath, ['--import', 'tsx', script], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    DATABASE_URL: stack.config.DATABASE_URL,
    ...env,
  });

beforeAll(async () => {
  stack = await createTestStack();
  ({ creds, merchantId, tokenId } = await createWorld(stack, { account: 'Metrics processes' }));

  const [gateway, payments, merchants, settlement] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  urls.gateway = `http://127.0.0.1:${gateway}`;
  urls.payments = `http://127.0.0.1:${payments}`;
  urls.merchants = `http://127.0.0.1:${merchants}`;
  urls.settlement = `http://127.0.0.1:${settlement}`;
  // The gateway enqueues the pass a clock move asks for; the settlement process takes it: one queue prefix.
  const queues = { QUEUE_PREFIX: queuePrefix('metrics', inject('runId')) };
  start('services/merchants/src/main.ts', { MERCHANTS_PORT: String(merchants) });
  start('services/payments/src/main.ts', { PAYMENTS_PORT: String(payments) });
  start('services/settlement/src/main.ts', {
    ...queues,
    METRICS_PORT: String(settlement),
    SETTLEMENT_INTERVAL_SECONDS: '1',
  });
  start('services/gateway/src/main.ts', {
    ...queues,
    PORT: String(gateway),
    PUBLIC_BASE_URL: urls.gateway,
    PAYMENTS_URL: urls.payments,
    MERCHANTS_URL: urls.merchants,
  });
  await Promise.all(
    Object.entries(urls).map(([name, url]) =>
      waitFor(async () => (await getFresh(`${url}/metrics`)).status === 200, {
        timeoutMs: 80_000,
        what: `${name} /metrics`,
        retryOnError: true,
      }),
    ),
  );
}, 90_000);

afterAll(async () => {
  await processes.killAll();
  await stack?.close();
});

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${urls.gateway}${path}`, {
    method,
    headers: { ...creds.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

const scrape = async (url: string) => {
  const response = await getFresh(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.contentType).toMatch(/^text\/plain/);
  return response.text;
};

describe('metrics of separate processes', () => {
  it('each process serves the counters of its own work, unauthenticated, and they only grow', async () => {
    const created = await call('POST', '/payments', tokenv3Body({ merchantId, tokenId, requestId: newRequestId() }));
    expect(created.status).toBe(201);
    const paymentId: string = (await created.json()).data.id;
    expect((await call('GET', '/merchants')).status).toBe(200);

    // A week on: past the card's settlement day whatever the weekday; the gateway enqueues a pass at once.
    const moved = await call('POST', '/sandbox/clock', {
      data: { type: 'clock', attributes: { advanceSeconds: 7 * 86_400 } },
    });
    expect(moved.status).toBe(200);
    const status = async () =>
      (await stack.sql`select status from payments where id = ${paymentId}`)[0]?.status as string | undefined;
    await waitFor(async () => (await status()) === 'completed', {
      timeoutMs: 30_000,
      what: 'the payment settled',
      retryOnError: true,
    });

    const payments = await scrape(urls.payments);
    expect(total(payments, 'pps_payments_total', { type: 'tokenv3', outcome: 'approved' })).toBe(1);
    const created201 = { method: 'POST', route: '/payments', status: '201' };
    expect(total(payments, 'pps_http_request_duration_seconds_count', created201)).toBe(1);
    expect(total(payments, 'process_cpu_seconds_total')).toBeGreaterThan(0); // default metrics too

    const merchants = await scrape(urls.merchants);
    const listed = { method: 'GET', route: '/merchants', status: '200' };
    expect(total(merchants, 'pps_http_request_duration_seconds_count', listed)).toBe(1);
    expect(total(merchants, 'pps_payments_total')).toBe(0); // payments are counted where they are made

    // The record settled, then the pass's duration observed: wait for the pass's end to be counted.
    await waitFor(
      async () => total(await scrape(urls.settlement), 'pps_settlement_records_total', { outcome: 'settled' }) >= 1,
      { timeoutMs: 10_000, what: 'the settled record counted', retryOnError: true },
    );
    const first = await scrape(urls.settlement);
    expect(total(first, 'pps_settlement_pass_duration_seconds_count')).toBeGreaterThan(0);
    expect(total(first, 'pps_settlement_records_total', { outcome: 'settled' })).toBeGreaterThanOrEqual(1);
    expect((await getFresh(`${urls.settlement}/healthz`)).status).toBe(200);
    expect((await getFresh(`${urls.settlement}/nothing`)).status).toBe(404);

    // Passes every second: a later scrape has as many or more of everything, never fewer.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const second = await scrape(urls.settlement);
    for (const [name, labels] of [
      ['pps_settlement_pass_duration_seconds_count', {}],
      ['pps_settlement_records_total', { outcome: 'settled' }],
      ['pps_settlement_records_total', { outcome: 'returned' }],
    ] as const) {
      expect(total(second, name, labels), name).toBeGreaterThanOrEqual(total(first, name, labels));
    }
    expect(total(second, 'pps_settlement_pass_duration_seconds_count')).toBeGreaterThan(
      total(first, 'pps_settlement_pass_duration_seconds_count'),
    );
    const paymentsAgain = await scrape(urls.payments);
    expect(total(paymentsAgain, 'pps_payments_total')).toBe(1);
    expect(total(paymentsAgain, 'pps_http_request_duration_seconds_count')).toBeGreaterThanOrEqual(
      total(payments, 'pps_http_request_duration_seconds_count'),
    );

    // Labels carry templates and kinds, never an id or a credential.
    const gateway = await scrape(urls.gateway);
    for (const text of [payments, merchants, second, gateway]) {
      for (const secret of [creds.accountId, creds.apiKey, creds.appId, merchantId, tokenId, paymentId]) {
        expect(text).not.toContain(secret);
      }
    }
  }, 60_000);

  it("a service's own routes still need the gateway's signature", async () => {
    const response = await fetch(`${urls.payments}/payments/states`);
    expect(response.status).toBe(401);
  });
});
