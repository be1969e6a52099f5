import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { createClient } from '@pps/sdk';
import { closeServer, listen } from '@pps/shared/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStack, type TestStack } from '../harness';

/**
 * examples/quickstart.ts, run as a reader runs it (`npx tsx examples/quickstart.ts` with the three variables
 * `npm start` prints), against the whole API served over real HTTP in this process with the webhook pipeline: it
 * must exit 0 and print each step's line, the verified webhook and the refused payment's code and pointer included.
 */

let stack: TestStack;
let server: Server;
let base: string;

beforeAll(async () => {
  stack = await createTestStack({ webhooks: true, env: { OUTBOX_POLL_INTERVAL_MS: '200' } });
  const listening = await listen(stack.gateway.fetch, 0, '127.0.0.1');
  server = listening.server as Server;
  base = `http://127.0.0.1:${listening.port}`;
});
afterAll(async () => {
  if (server) await closeServer(server);
  await stack?.close();
});

/** Runs the example in a process of its own with `env` added, killed if it has not exited within `timeoutMs`. */
function runExample(env: Record<string, string>, timeoutMs = 45_000) {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  for (const name of ['PPS_URL', 'PPS_API_KEY', 'PPS_APP_ID', 'PPS_APP_KEY', 'PPS_WEBHOOK_PORT']) {
    if (!(name in env)) delete childEnv[name];
  }
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/quickstart.ts'], {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('examples/quickstart.ts', () => {
  it('runs every step against the API over HTTP and exits 0', async () => {
    const creds = await stack.createAccount('SDK quick start');
    const run = await runExample({ PPS_URL: base, PPS_API_KEY: creds.apiKey, PPS_APP_ID: creds.appId });
    const context = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, context).toBe(0);
    const out = run.stdout;

    expect(out, context).toContain(`client: ${base}, app ${creds.appId}\n`);
    const merchantId = /^merchant: (mer_\w+) \(active\)$/m.exec(out)?.[1];
    expect(merchantId, context).toBeDefined();
    expect(out, context).toMatch(/^card token: tok_\w+ \(visa 1111\)$/m);
    expect(out, context).toMatch(/^webhooks: http:\/\/127\.0\.0\.1:\d+\/hooks\/pps subscribed as \w+$/m);
    const paymentId = /^payment: (pay_\w+) pending, 1000 USD$/m.exec(out)?.[1];
    expect(paymentId, context).toBeDefined();
    expect(out, context).toMatch(/^refund: pay_\w+ refund of 300, pending$/m);
    expect(out, context).toContain(`read back: ${paymentId} partial_refund, refundable 700\n`);
    expect(out, context).toMatch(new RegExp(`^listed: 2 payments of ${merchantId} \\(`, 'm'));
    // The webhook the API delivered to the example's receiver, its signature checked with verifyWebhook.
    expect(out, context).toMatch(
      new RegExp(`^webhook verified: payment\\.created ${paymentId} \\(sequence \\d+\\)$`, 'm'),
    );
    // The refused payment's PpsError: its status, code, JSON pointer and request id.
    expect(out, context).toMatch(
      /^error: 400 invalid_field at \/data\/attributes\/transaction\/amount \(request \S+\)$/m,
    );
    expect(out, context).toMatch(/done\n$/);
    expect(run.stderr, context).toBe('');

    // What it did, as the API saw it: the payment partly refunded, the endpoint deleted again. (Through a client
    // of its own: the example made a new app key, which revoked the tokens of `creds`' key.)
    const client = createClient({ baseUrl: base, apiKey: creds.apiKey, appId: creds.appId });
    const { data: payment } = await client.GET('/payments/{id}', { params: { path: { id: paymentId ?? '' } } });
    expect(payment?.data.attributes).toMatchObject({ status: 'partial_refund', refundableAmount: '700' });
    const { data: endpoints } = await client.GET('/webhooks');
    expect(endpoints?.data).toEqual([]);
  }, 60_000);

  it("takes the shell's app key from PPS_APP_KEY, so the shell's token still works after it", async () => {
    const creds = await stack.createAccount('SDK quick start with a key');
    const shell = () => fetch(`${base}/auth/token`, { headers: creds.headers });
    expect((await shell()).status).toBe(200);
    const run = await runExample({
      PPS_URL: base,
      PPS_API_KEY: creds.apiKey,
      PPS_APP_ID: creds.appId,
      PPS_APP_KEY: creds.appKey,
    });
    const context = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, context).toBe(0);
    expect(run.stdout, context).toMatch(/done\n$/);
    // No new app key was made: the token minted from the shell's key is not revoked.
    expect((await shell()).status).toBe(200);
  }, 60_000);

  it('without PPS_APP_KEY makes a new app key, which revokes the tokens of the previous one', async () => {
    const creds = await stack.createAccount('SDK quick start without a key');
    const run = await runExample({ PPS_URL: base, PPS_API_KEY: creds.apiKey, PPS_APP_ID: creds.appId });
    expect(run.code, run.stderr).toBe(0);
    const response = await fetch(`${base}/auth/token`, { headers: creds.headers });
    expect(response.status).toBe(401);
    expect((await response.json()).errors[0].code).toBe('token_revoked');
  }, 60_000);

  it('says which variable is missing and exits 2', async () => {
    const run = await runExample({ PPS_URL: base });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('PPS_API_KEY is not set');
    expect(run.stdout).toBe('');
  }, 30_000);
});
