import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../config';
import type { Db } from '../db';
import { createLogger } from '../logger';
import { attachCaller, signInternal } from './internal-auth';
import { createServiceApp } from './service-app';

const config = testConfig();
/** No database: the pool's watch finds a client whose probe answers at once, and nothing else is asked of it. */
const noDatabase = { $client: { unsafe: async () => [] } } as unknown as Db;
const caller = { accountId: 'acct_1', appId: 'app_1', clockOffsetSeconds: 0, requestId: 'req_test_500' };

function appWithLog() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = createServiceApp(
    { config, db: noDatabase, log: createLogger({ level: 'info', destination: sink }) },
    'test',
  );
  app.get('/boom', () => {
    throw new Error('relation "secret_table" does not exist at 10.0.0.5');
  });
  return { app, lines };
}

describe('service app error mapping', () => {
  it('turns an unexpected failure into a 500 that leaks nothing, logged with the request id', async () => {
    const { app, lines } = appWithLog();
    const response = await app.request('/boom', {
      headers: signInternal(config.INTERNAL_SECRET, caller, 'GET', '/boom'),
    });
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toEqual({
      errors: [
        {
          status: '500',
          code: 'internal_error',
          title: 'Internal Server Error',
          detail: 'An unexpected error occurred; quote the request id',
        },
      ],
      meta: { requestId: 'req_test_500' },
    });
    expect(JSON.stringify(body)).not.toContain('secret_table');
    const logged = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'unhandled error');
    expect(logged).toMatchObject({ requestId: 'req_test_500', path: '/boom' });
    expect(logged.err.message).toContain('secret_table');
  });

  it('takes the caller attached in this process without a signature; the same headers without it are refused', async () => {
    const { app } = appWithLog();
    app.get('/who', (c) => c.json({ accountId: c.get('ctx').accountId, requestId: c.get('ctx').requestId }));
    const attached = attachCaller(new Request('http://service/who'), caller);
    const response = await app.fetch(attached);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ accountId: 'acct_1', requestId: 'req_test_500' });
    // Headers naming a caller are nothing without the signature.
    const forged = await app.request('/who', { headers: { 'x-pps-account': 'acct_1', 'x-pps-app': 'app_1' } });
    expect(forged.status).toBe(401);
  });

  it('answers 401 to a call without the gateway signature', async () => {
    const { app } = appWithLog();
    const response = await app.request('/boom');
    expect(response.status).toBe(401);
    expect((await response.json()).errors[0].code).toBe('internal_signature_missing');
  });
});

describe('service app liveness', () => {
  it('answers /healthz unsigned (a container healthcheck), and nothing else', async () => {
    const { app } = appWithLog();
    app.get('/who', (c) => c.json({ accountId: c.get('ctx').accountId }));
    const health = await app.request('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await app.request('/who')).status).toBe(401);
  });
});
