import { type ChildProcess, spawn } from 'node:child_process';
import { queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestStack, type TestStack } from '../harness';
import { freePort, processTracker } from '../processes';
import { getFresh } from '../prometheus';
import { waitFor } from '../wait';

/**
 * The services run apart on one machine (README, Run the services apart): settlement and webhooks side by side,
 * given one environment as a shell gives it, each serve `/metrics` and `/healthz` on their own role's port; and
 * `npm run start:apart`'s script starts all five roles, each answering on its port, and stops them all on SIGINT.
 *
 * The ports are the role variables (SETTLEMENT_METRICS_PORT, WEBHOOKS_METRICS_PORT, PAYMENTS_PORT, …) set to free
 * ports, not the fixed defaults: vitest runs files in parallel and a developer may have `npm run start:apart` up
 * while the tests run, so a fixed port could be taken by something outside the test. That each role's default
 * differs is config.test.ts's; here the processes show they resolve their role's own variable from a shared
 * environment, which is what made settlement and webhooks clash when both read METRICS_PORT.
 */

let stack: TestStack;
const processes = processTracker();

beforeAll(async () => {
  stack = await createTestStack();
}, 60_000);

afterAll(async () => {
  await processes.killAll();
  if (apart?.pid && apart.exitCode === null) {
    try {
      process.kill(-apart.pid, 'SIGKILL'); // the script's process group: its five children with it
    } catch {}
  }
  await stack?.close();
});

const baseEnv = () => ({
  NODE_ENV: 'test',
  LOG_LEVEL: 'error',
  HOST: '127.0.0.1',
  DATABASE_URL: stack.config.DATABASE_URL,
  QUEUE_PREFIX: queuePrefix('apart', inject('runId')),
});

const scrape = async (url: string) => {
  const response = await getFresh(`${url}/metrics`);
  expect(response.status, url).toBe(200);
  expect(response.contentType).toMatch(/^text\/plain/);
  return response.text;
};

const up = (name: string, url: string, detail?: () => string) =>
  waitFor(async () => (await getFresh(`${url}/healthz`)).status === 200, {
    timeoutMs: 80_000,
    what: `${name} /healthz`,
    retryOnError: true,
    ...(detail ? { detail } : {}),
  });

describe('settlement and webhooks side by side', () => {
  it('each serves /metrics and /healthz on its own port, from one environment', async () => {
    const [settlementPort, webhooksPort] = await Promise.all([freePort(), freePort()]);
    const env = {
      ...baseEnv(),
      SETTLEMENT_METRICS_PORT: String(settlementPort),
      WEBHOOKS_METRICS_PORT: String(webhooksPort),
      SETTLEMENT_INTERVAL_SECONDS: '1',
    };
    processes.spawn(process.execPath, ['--import', 'tsx', 'services/settlement/src/main.ts'], env);
    processes.spawn(process.execPath, ['--import', 'tsx', 'services/webhooks/src/main.ts'], env);
    const settlement = `http://127.0.0.1:${settlementPort}`;
    const webhooks = `http://127.0.0.1:${webhooksPort}`;
    await Promise.all([up('settlement', settlement), up('webhooks', webhooks)]);

    // Settlement's passes are counted where they run, every second: its pass count grows past 0.
    await waitFor(async () => /^pps_settlement_pass_duration_seconds_count\S* [1-9]/m.test(await scrape(settlement)), {
      what: "settlement's passes counted on its own /metrics",
      retryOnError: true,
    });
    const webhooksText = await scrape(webhooks);
    expect(webhooksText).toMatch(/^# TYPE pps_webhook_deliveries_total counter$/m);
    expect(webhooksText).toMatch(/^process_cpu_seconds_total /m);
    expect(await (await fetch(`${settlement}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${webhooks}/healthz`)).json()).toEqual({ status: 'ok' });
    await processes.killAll();
  }, 120_000);
});

let apart: ChildProcess | undefined;

describe('npm run start:apart', () => {
  it('starts the five roles, each on its own port, and stops them all on SIGINT', async () => {
    const [gateway, payments, merchants, settlement, webhooks] = await Promise.all(
      Array.from({ length: 5 }, () => freePort()),
    );
    const urls = {
      gateway: `http://127.0.0.1:${gateway}`,
      payments: `http://127.0.0.1:${payments}`,
      merchants: `http://127.0.0.1:${merchants}`,
      settlement: `http://127.0.0.1:${settlement}`,
      webhooks: `http://127.0.0.1:${webhooks}`,
    };
    let output = '';
    // The package script runs this file with tsx; detached, so afterAll can kill the whole group if it must.
    apart = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-apart.ts'], {
      env: {
        ...process.env,
        ...baseEnv(),
        PORT: String(gateway),
        PUBLIC_BASE_URL: urls.gateway,
        PAYMENTS_PORT: String(payments),
        MERCHANTS_PORT: String(merchants),
        SETTLEMENT_METRICS_PORT: String(settlement),
        WEBHOOKS_METRICS_PORT: String(webhooks),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    apart.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    apart.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => apart?.once('exit', (code) => resolve(code)));
    const detail = () => `output:\n${output}`;

    await Promise.all(Object.entries(urls).map(([name, url]) => up(name, url, detail)));
    for (const [name, url] of Object.entries(urls)) {
      expect(output, detail()).toContain(`${name.padEnd(10)} | ${url} (/healthz, /readyz, /metrics`);
      await scrape(url);
    }
    // The gateway found the services the script started: an account's call forwarded to merchants.
    const creds = await stack.createAccount('Run apart');
    const listed = await fetch(`${urls.gateway}/merchants`, { headers: creds.headers });
    expect(listed.status, detail()).toBe(200);

    apart.kill('SIGINT');
    expect(await exited, detail()).toBe(0);
    for (const url of Object.values(urls)) {
      await expect(fetch(`${url}/healthz`), url).rejects.toThrow();
    }
  }, 150_000);
});
