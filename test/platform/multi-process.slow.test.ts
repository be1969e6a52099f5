import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createDatabaseFromTemplate, queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { personalMerchantAttributes } from '../fixtures/merchants';
import { achBody } from '../fixtures/payments';
import { freePort, stopProcess } from '../processes';
import { waitFor } from '../wait';

/** Gateway, payments and merchants as separate processes on real ports, talking real HTTP. */

const children: ChildProcess[] = [];
let drop: () => Promise<void>;
let base: string;
let merchantsUrl: string;
let authHeaders: Record<string, string> = {};

function start(script: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env, NODE_ENV: 'test', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
}

beforeAll(async () => {
  const database = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  drop = database.drop;
  const [gatewayPort, paymentsPort, merchantsPort] = [await freePort(), await freePort(), await freePort()];
  base = `http://127.0.0.1:${gatewayPort}`;
  merchantsUrl = `http://127.0.0.1:${merchantsPort}`;
  // A queue prefix of the run's: the global teardown deletes its Redis keys.
  const env = {
    DATABASE_URL: database.url,
    PUBLIC_BASE_URL: base,
    QUEUE_PREFIX: queuePrefix('test', inject('runId')),
  };
  start('services/merchants/src/main.ts', { ...env, MERCHANTS_PORT: String(merchantsPort) });
  start('services/payments/src/main.ts', { ...env, PAYMENTS_PORT: String(paymentsPort) });
  start('services/gateway/src/main.ts', {
    ...env,
    PORT: String(gatewayPort),
    PAYMENTS_URL: `http://127.0.0.1:${paymentsPort}`,
    MERCHANTS_URL: merchantsUrl,
  });
  // Up once it answers below 500; until it listens, fetch throws.
  await Promise.all(
    [`${base}/healthz`, `${merchantsUrl}/`, `http://127.0.0.1:${paymentsPort}/`].map((url) =>
      waitFor(async () => (await fetch(url)).status < 500, {
        timeoutMs: 30_000,
        what: `${url} to come up`,
        retryOnError: true,
      }),
    ),
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(children.map((child) => stopProcess(child)));
  await drop?.();
});

const post = (path: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('separate processes', () => {
  it('walks key → token → an authenticated call through gateway to each service', async () => {
    const account = await post(
      '/admin/accounts',
      { data: { type: 'accounts', attributes: { name: 'Multi' } } },
      { authorization: 'Bearer dev-admin-token' },
    );
    expect(account.status).toBe(201);
    const { apiKey, appId } = (await account.json()).data.attributes;
    const key = await post('/auth/key', { data: { type: 'auth', attributes: { appId } } }, { 'x-api-key': apiKey });
    const { appKey } = (await key.json()).data.attributes;
    const token = await post(
      '/auth/token',
      { data: { type: 'auth', attributes: { appKey } } },
      { 'x-api-key': apiKey },
    );
    const { appToken } = (await token.json()).data.attributes;
    const headers = { authorization: `Bearer ${appToken}`, 'x-api-key': apiKey, appid: appId };

    const merchants = await fetch(`${base}/merchants`, { headers });
    expect(merchants.status).toBe(200);
    expect((await merchants.json()).meta.total).toBe(0);
    const payments = await fetch(`${base}/payments/states`, { headers });
    expect(payments.status).toBe(200);
    expect(payments.headers.get('x-request-id')).toBeTruthy();
    authHeaders = headers;
  });

  it("forwards bodies as sent (a declared length, chunked, none) and answers the service's errors", async () => {
    const invalid = JSON.stringify({ data: { type: 'payments', attributes: { paymentType: 'tokenv3' } } });
    const declared = await post('/payments', JSON.parse(invalid), authHeaders);
    const chunked = await fetch(`${base}/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(invalid.slice(0, 10)));
          controller.enqueue(new TextEncoder().encode(invalid.slice(10)));
          controller.close();
        },
      }),
      // @ts-expect-error Node's fetch needs duplex for a streamed request body.
      duplex: 'half',
    });
    for (const response of [declared, chunked]) {
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(body.errors[0].source.pointer).toMatch(/^\/data\/attributes\//);
    }
    // A bodiless action reaches its service as one (404 for an unknown endpoint, not 415 for a missing type).
    const rotate = await fetch(`${base}/webhooks/whk_0000000000000000000000000a/rotate-secret`, {
      method: 'POST',
      headers: authHeaders,
    });
    expect(rotate.status).toBe(404);
  });

  it('forwards the Idempotency-Key header to the payments service, and Idempotent-Replayed back', async () => {
    const merchant = await post(
      '/merchants',
      { data: { type: 'merchants', attributes: personalMerchantAttributes() } },
      authHeaders,
    );
    expect(merchant.status).toBe(201);
    const body = achBody({ merchantId: (await merchant.json()).data.id });
    const keyed = { ...authHeaders, 'Idempotency-Key': randomUUID() };
    const first = await post('/payments', body, keyed);
    expect(first.status).toBe(201);
    const replay = await post('/payments', body, keyed);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await replay.json()).data.id).toBe((await first.json()).data.id);
    const invalid = await post('/payments', body, { ...authHeaders, 'Idempotency-Key': 'order-42' });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).errors[0].source).toEqual({ parameter: 'idempotency-key' });
  });

  it('a service reached directly, without the gateway signature, answers 401', async () => {
    const response = await fetch(`${merchantsUrl}/merchants`);
    expect(response.status).toBe(401);
    expect((await response.json()).errors[0].code).toBe('internal_signature_missing');
  });
});
