import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createDatabaseFromTemplate, queuePrefix } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, stopProcess } from '../processes';
import { waitFor } from '../wait';

/**
 * `npm run build`'s output is what the image runs: build into a directory of its own (inside the repository, so the
 * bundles find node_modules and the root package.json's "type": "module", as they do in /app), start the compiled
 * everything-in-one-process bundle with plain `node`, production settings and its own database, call it, SIGTERM it.
 */

const outdir = join('.tmp', `build-test-${randomBytes(4).toString('hex')}`);
const entries = [
  'start',
  'gateway',
  'payments',
  'merchants',
  'settlement',
  'webhooks',
  'migrate',
  'cli',
  'request-log-writer',
];
const drops: (() => Promise<void>)[] = [];
const children: ChildProcess[] = [];

const run = (command: string, args: string[]) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const build = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    build.stdout.on('data', (chunk) => {
      output += chunk;
    });
    build.stderr.on('data', (chunk) => {
      output += chunk;
    });
    build.once('close', (code) => resolve({ code, output }));
  });

beforeAll(async () => {
  const built = await run(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--outdir', outdir]);
  expect(built.output).toMatch(/built 9 entry points/);
  expect(built.code).toBe(0);
}, 60_000);

afterAll(async () => {
  await Promise.all(children.map((child) => stopProcess(child, 'SIGKILL')));
  await Promise.all(drops.map((drop) => drop()));
  await rm(outdir, { recursive: true, force: true });
});

describe('npm run build', () => {
  it('bundles every entry point with its source map, @pps/shared inside, and copies the migrations', async () => {
    for (const entry of entries) {
      expect(existsSync(join(outdir, `${entry}.js`)), entry).toBe(true);
      expect(existsSync(join(outdir, `${entry}.js.map`)), entry).toBe(true);
    }
    const journal = JSON.parse(await readFile(join(outdir, 'drizzle/meta/_journal.json'), 'utf8'));
    const committed = JSON.parse(await readFile('packages/shared/drizzle/meta/_journal.json', 'utf8'));
    expect(journal).toEqual(committed);
    const start = await readFile(join(outdir, 'start.js'), 'utf8');
    const imported = new Set([...start.matchAll(/^import .* from "([^"]+)";$/gm)].map((match) => match[1]));
    expect(imported).toContain('@hono/node-server'); // node_modules stay external…
    expect([...imported].filter((path) => path?.startsWith('@pps/') || path === 'tsx')).toEqual([]); // …not ours
  });

  it("gives node the same flags in the image as in npm start's", async () => {
    const { scripts } = JSON.parse(await readFile('package.json', 'utf8'));
    const dockerfile = await readFile('Dockerfile', 'utf8');
    const options = /^ENV NODE_OPTIONS="([^"]+)"$/m.exec(dockerfile)?.[1];
    expect(scripts.start).toMatch(/^node (--\S+ )+dist\/start\.js$/);
    expect(options?.split(' ')).toEqual(scripts.start.split(' ').filter((word: string) => word.startsWith('--')));
  });

  it('runs with plain node: serves /healthz and /readyz, creates an account, and exits 0 with "stopped" on SIGTERM', async () => {
    const { server, base, adminToken, output, exited } = await launch();

    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).checks.database).toBe('ok'); // the migrations were found in <outdir>/drizzle
    const docs = await fetch(`${base}/docs/assets/swagger-ui.css`); // swagger-ui-dist from node_modules
    expect(docs.status).toBe(200);
    const checkout = await fetch(`${base}/checkout.js`); // the checkout's browser files, copied to <outdir>/checkout
    expect(checkout.status).toBe(200);
    expect(await checkout.text()).toContain('mountCheckout');
    const account = await fetch(`${base}/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { type: 'accounts', attributes: { name: 'Compiled' } } }),
    });
    expect(account.status).toBe(201);
    expect((await account.json()).data.attributes.apiKey).toMatch(/^sk_/);

    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    const messages = logMessages(output());
    expect(messages).toContain('payment processing service listening');
    expect(messages).toContain('stopped');
    expect(output()).not.toContain('Demo account'); // production: no demo account
    expect(output()).not.toContain('Demo shop'); // nor demo shop
  });

  it('with WEB_CONCURRENCY=2 runs two workers on one port, replaces one that dies, and stops them all on SIGTERM', async () => {
    const { server, base, output, exited } = await launch({ WEB_CONCURRENCY: '2' });
    const listening = () => logLines(output()).filter((line) => line.msg === 'payment processing service listening');
    await waitFor(() => listening().length === 2, { what: 'two workers listening', detail: output });
    const workers = [...new Set(listening().map((line) => line.pid as number))];
    expect(workers).toHaveLength(2);
    expect(workers).not.toContain(server.pid);

    process.kill(workers[0] as number, 'SIGKILL');
    await waitFor(() => listening().length === 3, { what: 'a third worker listening', detail: output }); // the primary started another
    expect(logMessages(output())).toContain('worker died; starting another');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Both live workers drained and stopped, then the primary.
    expect(logMessages(output()).filter((message) => message === 'stopped')).toHaveLength(3);
  });
});

type LogLine = { msg?: string; pid?: number };
const logLines = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
const logMessages = (output: string) => logLines(output).map((line) => line.msg);

/** The compiled everything-in-one bundle with production settings on a database of its own, once /healthz answers. */
async function launch(extraEnv: Record<string, string> = {}) {
  const database = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  drops.push(database.drop);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const adminToken = randomBytes(16).toString('hex');
  const server = spawn(process.execPath, [join(outdir, 'start.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      DATABASE_URL: database.url,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: queuePrefix('build', inject('runId')),
      ADMIN_TOKEN: adminToken,
      INTERNAL_SECRET: randomBytes(24).toString('hex'),
      TOKEN_SIGNING_KEYS: `k1:${randomBytes(24).toString('hex')}`,
      DATA_ENCRYPTION_KEYS: `d1:${randomBytes(32).toString('base64')}`,
      BLIND_INDEX_KEY: randomBytes(24).toString('hex'),
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(server);
  let output = '';
  server.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  server.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => server.once('close', (code) => resolve(code)));
  await waitFor(
    async () => {
      if (server.exitCode !== null) throw new Error(`did not come up (exited with ${server.exitCode}):\n${output}`);
      const status = await fetch(`${base}/healthz`).then(
        (response) => response.status,
        () => 0,
      );
      return status === 200;
    },
    // Two workers and their primary each load the bundle and open their pools: on a loaded two-core machine that
    // has taken past 15 s.
    { what: '/healthz to answer 200', detail: () => output, timeoutMs: 45_000 },
  );
  return { server, base, adminToken, output: () => output, exited };
}
