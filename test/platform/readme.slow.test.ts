import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNpmStart } from '../start-process';

/**
 * README's worked example, run as a reader runs it: `npm start`'s entry on a fresh database of its own (so it creates
 * the demo account and prints its export line once), then, in bash with `-euo pipefail`, that export line followed by
 * every `sh` block between `<!-- worked-example:start -->` and `<!-- worked-example:end -->`, unchanged. The only
 * addition is a `curl` function that also writes each answer's status to stderr, so the test sees every call's status
 * without the example printing it.
 */

let started: Awaited<ReturnType<typeof startNpmStart>>;
let output = '';
let base: string;

beforeAll(async () => {
  started = await startNpmStart({
    // PUBLIC_BASE_URL is the default, http://localhost:<PORT>, as README's export line shows it.
    ready: (text) => /^export API=.*$/m.test(text) && text.includes('Demo shop (embedded checkout):'),
  });
  output = started.output();
  base = `http://localhost:${started.port}`;
}, 60_000);

afterAll(async () => {
  await started?.stop();
});

/** The `sh` blocks between a document's `<!-- name:start -->` and `<!-- name:end -->` markers, in order. */
function shBlocks(file: string, name: string, atLeast: number): string {
  const text = readFileSync(file, 'utf8');
  const section = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(text)?.[1];
  if (!section) throw new Error(`${file} has no ${name} markers`);
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
  expect(blocks.length).toBeGreaterThanOrEqual(atLeast);
  return blocks.join('\n');
}

/**
 * README's worked example, then the API guide's "Getting paid", its authorize-then-capture example and its dispute,
 * which go on in the same shell.
 */
const workedExample = () =>
  [
    shBlocks('README.md', 'worked-example', 3),
    shBlocks('docs/api.md', 'getting-paid', 1),
    shBlocks('docs/api.md', 'authorize-capture', 1),
    shBlocks('docs/api.md', 'disputes', 1),
  ].join('\n');

function bash(script: string, env: Record<string, string | undefined>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `script` in bash after `npm start`'s export line, each call's status also written to stderr by a `curl` function
 * around the real one, and the calls it made.
 */
async function pasteAfterExportLine(script: string) {
  const exportLine = /^export API=.*$/m.exec(output)?.[0] ?? '';
  const env: Record<string, string | undefined> = {
    ...process.env,
    // `node -p` in the example: this node, whatever PATH the test runner was given.
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  };
  for (const name of ['API', 'KEY', 'APP', 'ADMIN_TOKEN']) delete env[name];
  const observe = `curl() { command curl -w '%{stderr}HTTP %{http_code} %{method} %{url_effective}\\n' "$@"; }`;
  const run = await bash([observe, exportLine, script].join('\n'), env);
  const calls = run.stderr
    .split('\n')
    .filter((line) => line.startsWith('HTTP '))
    .map((line) => {
      const [, status, method, url] = line.split(' ');
      return { status: Number(status), method, path: new URL(url ?? '').pathname };
    });
  const context = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  return { run, calls, context };
}

describe("README's worked example", () => {
  it('npm start prints the export line and how to reach the admin API with the development token', () => {
    expect(output).toMatch(new RegExp(`^export API=${base} KEY=sk_test_[\\w-]+ APP=app_\\w+$`, 'm'));
    expect(output).toContain('Admin API: Authorization: Bearer dev-admin-token (development default; set ADMIN_TOKEN)');
    expect(output).toContain(`${base}/admin/queues`);
  });

  it('runs top to bottom, pasted into bash after the export line, and answers what README says', async () => {
    const { run, calls, context } = await pasteAfterExportLine(workedExample());
    expect(run.code, context).toBe(0);

    // Every call answered 2xx; each creation 201, in README's order.
    expect(
      calls.filter((call) => call.status >= 300),
      context,
    ).toEqual([]);
    const created = calls.filter((call) => call.method === 'POST' && call.path !== '/sandbox/clock');
    expect(created.map((call) => `${call.status} ${call.path.replace(/\/dp_\w+/, '/{id}')}`)).toEqual([
      '201 /auth/key',
      '201 /auth/token',
      '201 /merchants',
      '201 /tokens',
      '201 /payments', // the card payment
      '201 /payments', // its retry, replayed
      '201 /payments', // the refund (a void)
      '201 /payments', // the ACH debit
      // docs/api.md, Getting paid
      '201 /merchants',
      '201 /payments',
      '201 /payments',
      '201 /payouts',
      // docs/api.md, Authorize now, capture later
      '201 /payments', // the authorization
      '201 /payments', // its capture
      // docs/api.md, Disputes
      '201 /tokens',
      '201 /payments', // paid with the chargeback card
      '200 /disputes/{id}/evidence',
    ]);

    // The outputs README promises, in its order (jq prints one document after another).
    const out = run.stdout;
    expect(out).toMatch(/"status": "pending",\s*"transaction": \{/);
    expect(out).toMatch(/"gross": "1000"[\s\S]*"grossMinusNet": "59"/);
    expect(out).toMatch(/"net": "941"/);
    expect(out).toMatch(/^Idempotent-Replayed: true\r?$/im);
    expect(out).toMatch(/"paymentType": "refund",\s*"status": "completed",\s*"refundType": "void"/);
    expect(out).toMatch(/"status": "voided"/);
    expect(out).toMatch(/"last4": "6789"/);
    expect(out).toMatch(/^completed$/m); // the ACH payment after the clock moved
    // Its NACHA file: the ACH payment the example polled, and nothing else.
    const achId = calls
      .find((call) => call.path.startsWith('/payments/status/'))
      ?.path.split('/')
      .pop();
    expect(achId).toMatch(/^pay_/);
    expect(out).toMatch(new RegExp(`"entryCount": 1,[\\s\\S]*"paymentIds": \\[\\s*"${achId}"\\s*\\]`));
    expect(out).toMatch(/"totalDebit": "2000"/);

    // Getting paid: the balance at each step, the reconciliation adding up to the payout, the payout paid.
    expect(out).toContain('{"interval":"manual","weeklyAnchor":null,"monthlyAnchor":null,"delayDays":0}');
    expect(out).toMatch(/^9680\n4825$/m);
    expect(out).toContain('{"currency":"USD","pending":"14505","available":"0","inTransit":"0"}');
    expect(out).toMatch(/^14505$/m);
    expect(out).toContain('{"currency":"USD","pending":"0","available":"4505","inTransit":"10000"}');
    expect(out).toMatch(/^balanceTransactionId,type,sourceId,amount,fee,net,availableOn,createdAt\r?$/m);
    expect(out).toMatch(/^txn_\w+,payment,pay_\w+,10000,320,9680,/m);
    expect(out).toMatch(/^txn_\w+,payment,pay_\w+,5000,175,4825,/m);
    expect(out).toMatch(/^,carried_forward,,-4505,0,-4505,,\r?$/m);
    expect(out).toMatch(/^,total,,10495,495,10000,,\r?$/m);
    expect(out).toMatch(
      /\{"status":"paid","amount":"10000","bank":\{"last4":"6777","routingLast4":"0021"\},"traceNumber":"\d{15}"\}/,
    );
    expect(out).toMatch(/\{"type":"payout","net":"-10000","status":"available","payoutId":"po_\w+"\}/);

    // Authorize now, capture later: authorized with no settlement date, then 60.00 of 100.00 captured.
    expect(out).toMatch(/^\{"status":"authorized","settleAt":null,"authorizationExpiresAt":"[\d-]+T[\d:.]+Z"\}$/m);
    expect(out).toContain(
      '{"paymentType":"capture","status":"completed","message":"Captured; the rest of the authorization released"}',
    );
    expect(out).toMatch(
      /^\{"status":"pending","capturedAt":"[\d-]+T[\d:.]+Z","transaction":\{"amount":"6000","grossMinusNet":"204","net":"5796"\}\}$/m,
    );

    // Disputes: opened by the clock, the money and the fee taken back, evidence submitted, won, the money back.
    expect(out).toContain('{"status":"needs_response","phase":"chargeback","reason":"fraudulent","amount":"8000"}');
    expect(out).toContain('{"type":"dispute","amount":"-8000","fee":"1500","net":"-9500"}');
    expect(out).toMatch(/^under_review$/m);
    expect(out).toMatch(/^won$/m);
    expect(out).toContain('{"type":"dispute_reversal","amount":"8000","fee":"0","net":"8000"}');
  }, 120_000);

  it('pasted a second time on the same account, stops at the first API error and prints it, not null', async () => {
    const { run, calls, context } = await pasteAfterExportLine(shBlocks('README.md', 'worked-example', 3));
    expect(run.code, context).not.toBe(0);
    // The merchant of step 4 exists already (its email and SSN are unique per account): nothing runs after it.
    expect(calls.at(-1), context).toMatchObject({ status: 409, method: 'POST', path: '/merchants' });
    expect(calls.filter((call) => call.status >= 300)).toHaveLength(1);
    expect(run.stderr, context).toMatch(/^API error: \[\{.*"code":"duplicate_merchant".*\}\]$/m);
    expect(run.stdout, context).not.toMatch(/^null$/m);
  }, 60_000);
});
