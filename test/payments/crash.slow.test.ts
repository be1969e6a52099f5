import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { recoverPayments, SandboxProcessor } from '@pps/payments';
import { testConfig } from '@pps/shared/config';
import { createDatabase, type Database } from '@pps/shared/db';
import { createLogger } from '@pps/shared/logger';
import { createDatabaseFromTemplate, queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { personalMerchantAttributes } from '../fixtures/merchants';
import { billingAddress, expiryIn, tokenv3Body } from '../fixtures/payments';
import { freePort, stopProcess } from '../processes';
import { waitFor } from '../wait';

/**
 * The payments service SIGKILLed while payments wait for the processor (between their phases: docs/design.md,
 * Idempotency and concurrency), then restarted: every 201 is stored once, every other payment ends failed by
 * recovery, and no request made two records (each processor call follows its own record's first commit).
 */

const LATENCY_MS = 600;
const children = new Set<ChildProcess>();
let drop: () => Promise<void>;
let database: Database;
let base: string;
let paymentsPort: number;
let env: Record<string, string>;
let payments: ChildProcess;

function start(script: string, extra: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env, LOG_LEVEL: 'error', ...extra, NODE_ENV: 'test' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

const up = (url: string) =>
  waitFor(async () => (await fetch(url)).status < 500, { timeoutMs: 30_000, what: `${url} up`, retryOnError: true });

async function startPayments() {
  payments = start('services/payments/src/main.ts', {
    PAYMENTS_PORT: String(paymentsPort),
    SANDBOX_LATENCY_MS: String(LATENCY_MS),
  });
  await up(`http://127.0.0.1:${paymentsPort}/`);
}

beforeAll(async () => {
  const cloned = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  drop = cloned.drop;
  database = createDatabase(cloned.url, { max: 2 });
  const [gatewayPort, merchantsPort] = [await freePort(), await freePort()];
  paymentsPort = await freePort();
  base = `http://127.0.0.1:${gatewayPort}`;
  // A queue prefix of the run's: the global teardown deletes its Redis keys.
  env = {
    DATABASE_URL: cloned.url,
    PUBLIC_BASE_URL: base,
    QUEUE_PREFIX: queuePrefix('test', inject('runId')),
  };
  start('services/merchants/src/main.ts', { MERCHANTS_PORT: String(merchantsPort) });
  start('services/gateway/src/main.ts', {
    // The kill makes it log every call it loses (a 502 each): expected here.
    LOG_LEVEL: 'fatal',
    PORT: String(gatewayPort),
    PAYMENTS_URL: `http://127.0.0.1:${paymentsPort}`,
    MERCHANTS_URL: `http://127.0.0.1:${merchantsPort}`,
  });
  await Promise.all([startPayments(), up(`${base}/healthz`), up(`http://127.0.0.1:${merchantsPort}/`)]);
}, 60_000);

afterAll(async () => {
  await Promise.all([...children].map((child) => stopProcess(child)));
  await database?.close();
  await drop?.();
});

type Answer = { status: number; body: any };

const post = async (path: string, body: unknown, headers: Record<string, string>): Promise<Answer> => {
  try {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  } catch {
    return { status: 0, body: null };
  }
};

async function credentials() {
  const admin = { authorization: 'Bearer dev-admin-token' };
  const account = await post('/admin/accounts', { data: { type: 'accounts', attributes: { name: 'Crash' } } }, admin);
  const { apiKey, appId } = account.body.data.attributes;
  const key = await post('/auth/key', { data: { type: 'auth', attributes: { appId } } }, { 'x-api-key': apiKey });
  const { appKey } = key.body.data.attributes;
  const token = await post('/auth/token', { data: { type: 'auth', attributes: { appKey } } }, { 'x-api-key': apiKey });
  return { authorization: `Bearer ${token.body.data.attributes.appToken}`, 'x-api-key': apiKey, appid: appId };
}

describe('a payments process killed between the phases of its payments', () => {
  it('stores every 201 once and fails the rest by recovery; no request makes two records', async () => {
    const headers = await credentials();
    const merchant = await post(
      '/merchants',
      { data: { type: 'merchants', attributes: personalMerchantAttributes() } },
      headers,
    );
    const card = { holder: 'Jane Doe', number: '4111111111111111', expiry: expiryIn(3), code: '123' };
    const token = await post(
      '/tokens',
      { data: { type: 'tokens', attributes: { tokenType: 'card', card, billingAddress } } },
      headers,
    );
    const merchantId: string = merchant.body.data.id;
    const tokenId: string = token.body.data.id;
    const bodyOf = (index: number, requestId: string) =>
      tokenv3Body({ merchantId, tokenId, requestId, amount: String(5000 + index) });
    const requests = Array.from({ length: 24 }, (_, index) => ({ index, requestId: randomUUID() }));
    const pay = (request: { index: number; requestId: string }) =>
      post('/payments', bodyOf(request.index, request.requestId), headers);

    // The first half answered before the kill; the second half caught between their phases.
    const answered = await Promise.all(requests.slice(0, 12).map(pay));
    expect(answered.map((answer) => answer.status)).toEqual(Array(12).fill(201));
    const caught = requests.slice(12).map(pay);
    await waitFor(
      async () =>
        (await database.sql`select count(*)::int as n from payment_claims where status = 'processing'`)[0]?.n as number,
      { what: '12 payments processing', until: (n) => n === 12, intervalMs: 20 },
    );
    await stopProcess(payments, 'SIGKILL');
    const lost = await Promise.all(caught);
    for (const answer of lost) expect(answer.status).not.toBe(201);
    await startPayments();

    // In flight until recovery: the retry never pays again.
    for (const request of requests.slice(12, 14)) {
      const retry = await pay(request);
      expect(retry.status).toBe(409);
      expect(retry.body.errors[0].code).toBe('idempotency_key_in_use');
    }
    // Recovery, as the settlement process runs it: its sandbox remembers nothing of the killed process's answers.
    const recovered = await recoverPayments(
      {
        db: database.db,
        config: testConfig({ DATABASE_URL: env.DATABASE_URL! }),
        log: createLogger({ level: 'silent' }),
        processor: new SandboxProcessor(),
      },
      { now: new Date(Date.now() + 61_000) },
    );
    expect(recovered).toEqual({ recorded: 0, abandoned: 12 });

    const retries = await Promise.all(requests.map(pay));
    for (const [index, retry] of retries.entries()) {
      if (index < 12) {
        expect(retry.status).toBe(201);
        expect(retry.body.data.id).toBe(answered[index]!.body.data.id);
      } else {
        expect(retry.status).toBe(402);
        expect(retry.body.errors[0].code).toBe('processing_abandoned');
      }
    }
    const rows = await database.sql`
      select p.amount::int as amount, p.status, p.id,
        (select count(distinct posting_id)::int from ledger_entries e where e.payment_id = p.id) as postings,
        (select array_agg(type order by type) from events v where v.resource_id = p.id) as events
      from payments p where p.merchant_id = ${merchantId} order by p.amount`;
    expect(rows.map((row) => row.amount)).toEqual(requests.map((request) => 5000 + request.index));
    for (const row of rows) {
      const paid = row.amount < 5012;
      expect(row.status).toBe(paid ? 'pending' : 'failed');
      expect(row.postings).toBe(paid ? 1 : 0);
      expect(row.events).toEqual([paid ? 'payment.created' : 'payment.failed']);
    }
  }, 90_000);
});
