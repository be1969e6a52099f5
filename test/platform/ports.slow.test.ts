import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { createDatabaseFromTemplate, queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../processes';

/**
 * A port already in use, as an operator meets it: `npm start`, one role alone, `npm run start:apart`, a worker's
 * metrics port. Each prints one line naming the port and the variable that moves it, exits non-zero, and shows no
 * stack trace. The ports are held by a plain TCP server of the test's own.
 */

let database: Awaited<ReturnType<typeof createDatabaseFromTemplate>>;
const held: Server[] = [];

beforeAll(async () => {
  database = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
}, 60_000);

afterAll(async () => {
  await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  await database?.drop();
});

/** A free port, then taken by a server that accepts and does nothing. */
async function takenPort(): Promise<number> {
  const port = await freePort();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  held.push(server);
  return port;
}

/** Runs an entry point to its exit (at most `timeoutMs`), with the development defaults and logs at info. */
function run(entry: string, env: Record<string, string>, timeoutMs = 60_000) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      env: {
        ...process.env,
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        QUEUE_PREFIX: queuePrefix('ports', inject('runId')),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not exit within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** One line says the port is in use, and it is `expected`; nothing looks like a stack trace; the exit code is 1. */
function expectOneLine(result: { code: number | null; output: string }, expected: string) {
  const lines = result.output.split('\n');
  expect(
    lines.filter((line) => /in use/i.test(line)),
    result.output,
  ).toEqual([expected]);
  expect(
    lines.filter((line) => /^\s+at /.test(line) || /EADDRINUSE/.test(line)),
    result.output,
  ).toEqual([]);
  expect(result.code, result.output).toBe(1);
}

describe('a port already in use', () => {
  it('npm start: one line naming PORT, exit 1, alone or with workers of a cluster', async () => {
    const port = await takenPort();
    const env = { PORT: String(port), DEMO_PORT: '0' };
    const [alone, clustered] = await Promise.all([
      run('scripts/start.ts', env),
      run('scripts/start.ts', { ...env, WEB_CONCURRENCY: '2' }),
    ]);
    expectOneLine(alone, `port ${port} is in use: set PORT to another port`);
    expectOneLine(clustered, `port ${port} is in use: set PORT to another port`);
  }, 90_000);

  it('a role alone: its own variable (the gateway, payments, merchants; a worker its metrics port)', async () => {
    const port = await takenPort();
    const [gateway, payments, merchants, settlement, webhooks, overridden] = await Promise.all([
      run('services/gateway/src/main.ts', {
        PORT: String(port),
        PAYMENTS_URL: 'http://127.0.0.1:1',
        MERCHANTS_URL: 'http://127.0.0.1:1',
      }),
      run('services/payments/src/main.ts', { PAYMENTS_PORT: String(port) }),
      run('services/merchants/src/main.ts', { MERCHANTS_PORT: String(port) }),
      run('services/settlement/src/main.ts', { SETTLEMENT_METRICS_PORT: String(port) }),
      run('services/webhooks/src/main.ts', { WEBHOOKS_METRICS_PORT: String(port) }),
      run('services/settlement/src/main.ts', { METRICS_PORT: String(port) }),
    ]);
    expectOneLine(gateway, `port ${port} is in use: set PORT to another port`);
    expectOneLine(payments, `port ${port} is in use: set PAYMENTS_PORT to another port`);
    expectOneLine(merchants, `port ${port} is in use: set MERCHANTS_PORT to another port`);
    expectOneLine(settlement, `port ${port} is in use: set SETTLEMENT_METRICS_PORT to another port`);
    expectOneLine(webhooks, `port ${port} is in use: set WEBHOOKS_METRICS_PORT to another port`);
    expectOneLine(overridden, `port ${port} is in use: set METRICS_PORT to another port`);
  }, 120_000);

  it('npm run start:apart: one line, before any role starts', async () => {
    const port = await takenPort();
    const others = await Promise.all(Array.from({ length: 4 }, () => freePort()));
    const result = await run('scripts/start-apart.ts', {
      PORT: String(port),
      PAYMENTS_PORT: String(others[0]),
      MERCHANTS_PORT: String(others[1]),
      SETTLEMENT_METRICS_PORT: String(others[2]),
      WEBHOOKS_METRICS_PORT: String(others[3]),
    });
    expectOneLine(result, `port ${port} is in use: set PORT to another port`);
    // Nothing was started: no role's line, no log line.
    expect(result.output.trim(), result.output).toBe(`port ${port} is in use: set PORT to another port`);
  }, 60_000);
});
