import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNpmStart } from '../start-process';

/**
 * README's worked example, pasted as a reader pastes it: `npm start`'s entry on a fresh database of its own (so it
 * creates the demo account and prints its export line once), then, into an interactive bash (`bash -i`: no `-e`,
 * history expansion on, each line run whatever the one before did), that export line followed by every `sh` block
 * between `<!-- worked-example:start -->` and `<!-- worked-example:end -->` and the API guide's examples that go on in
 * the same shell, unchanged; then all of it pasted again into the same shell, on the same account. The only additions
 * are a `curl` function that also writes each answer's status to stderr and a `sleep` function that says it waits,
 * so the test sees every call and every wait without the example printing them.
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

/** `script` pasted into an interactive bash, line by line from its input as a terminal hands a paste over. */
function interactiveBash(script: string, env: Record<string, string | undefined>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['--norc', '--noprofile', '--noediting', '-i'], {
      env: { ...env, PS1: '', PS2: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(`${script}\n`);
  });
}

/** What an interactive bash without a terminal says of itself (job control off, and `exit` at the end of input). */
const BASH_ITSELF = [/^bash: cannot set terminal process group/, /^bash: no job control in this shell$/, /^exit$/];

type Call = { status: number; method: string; path: string };
/** What one paste did: its output, the calls it made and the waits it began, in order. */
type Paste = { stdout: string; stderr: string; calls: Call[]; sleeps: number; said: string[] };

const PASTE_AGAIN = '# ---- pasted again ----';

/**
 * README's worked example and the API guide's examples after `npm start`'s export line, pasted twice into one
 * interactive bash, each call's status and each `sleep` also written to stderr by functions around the real ones,
 * and the sandbox clock's offset read (past the observer) before and after the second paste.
 */
async function pasteTwiceAfterExportLine(script: string) {
  const exportLine = /^export API=.*$/m.exec(output)?.[0] ?? '';
  // The shell's temporary files (api's bodies, its $API_FAILED flag) in a directory removed afterwards.
  const temporary = mkdtempSync(join(tmpdir(), 'pps-readme-'));
  const env: Record<string, string | undefined> = {
    ...process.env,
    // `node -p` in the example: this node, whatever PATH the test runner was given.
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    TMPDIR: temporary,
  };
  for (const name of ['API', 'KEY', 'APP', 'ADMIN_TOKEN', 'API_FAILED']) delete env[name];
  const observe = [
    `curl() { command curl -w '%{stderr}HTTP %{http_code} %{method} %{url_effective}\\n' "$@"; }`,
    `sleep() { echo "SLEEP $*" >&2; command sleep "$@"; }`,
  ];
  const clock = (name: string) =>
    `echo "CLOCK ${name} $(command curl -s "\${H[@]}" $API/sandbox/clock | jq .data.attributes.offsetSeconds)" >&2`;
  const run = await interactiveBash(
    [
      ...observe,
      exportLine,
      script,
      `echo '${PASTE_AGAIN}'; echo '${PASTE_AGAIN}' >&2`,
      clock('before'),
      script,
      clock('after'),
    ].join('\n'),
    env,
  ).finally(() => rmSync(temporary, { recursive: true, force: true }));
  const context = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  const paste = (stdout: string, stderr: string): Paste => {
    const lines = stderr.split('\n').filter((line) => line !== '' && !BASH_ITSELF.some((noise) => noise.test(line)));
    return {
      stdout,
      stderr,
      calls: lines
        .filter((line) => line.startsWith('HTTP '))
        .map((line) => {
          const [, status, method, url] = line.split(' ');
          return { status: Number(status), method: method ?? '', path: new URL(url ?? '').pathname };
        }),
      sleeps: lines.filter((line) => line.startsWith('SLEEP ')).length,
      said: lines.filter((line) => !/^(HTTP|SLEEP|CLOCK) /.test(line)),
    };
  };
  const [stdout1 = '', stdout2 = ''] = run.stdout.split(`${PASTE_AGAIN}\n`);
  const [stderr1 = '', stderr2 = ''] = run.stderr.split(`${PASTE_AGAIN}\n`);
  const offset = (name: string) =>
    [...run.stderr.matchAll(/^CLOCK (\w+) (.*)$/gm)].find((match) => match[1] === name)?.[2];
  return {
    first: paste(stdout1, stderr1),
    second: paste(stdout2, stderr2),
    clockOffset: { before: offset('before'), after: offset('after') },
    context,
  };
}

describe("README's worked example", () => {
  it('npm start prints the export line and how to reach the admin API with the development token', () => {
    expect(output).toMatch(new RegExp(`^export API=${base} KEY=sk_test_[\\w-]+ APP=app_\\w+$`, 'm'));
    expect(output).toContain('Admin API: Authorization: Bearer dev-admin-token (development default; set ADMIN_TOKEN)');
    expect(output).toContain(`${base}/admin/queues`);
  });

  describe('pasted twice into one interactive bash on the same account', () => {
    let pasted: Awaited<ReturnType<typeof pasteTwiceAfterExportLine>>;
    beforeAll(async () => {
      pasted = await pasteTwiceAfterExportLine(workedExample());
    }, 180_000);

    it('the first time runs top to bottom and answers what README says, with nothing on stderr', () => {
      const { calls, stdout: out, said } = pasted.first;
      const context = pasted.context;
      expect(said, context).toEqual([]);

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
    });

    it("the second time stops at step 4's 409 and prints it: no call, no wait and no clock move after it", () => {
      const { calls, stdout, said, sleeps } = pasted.second;
      const context = pasted.context;
      // The merchant of step 4 exists already (its email and SSN are unique per account): nothing runs after it.
      expect(
        calls.map((call) => `${call.status} ${call.method} ${call.path}`),
        context,
      ).toEqual(['201 POST /auth/key', '201 POST /auth/token', '200 GET /auth/token', '409 POST /merchants']);
      expect(sleeps, context).toBe(0);
      // curl's own line, the error, and the one line of every api call after it.
      expect(said, context).toHaveLength(3);
      expect(said[0], context).toBe('curl: (22) The requested URL returned error: 409');
      expect(said[1], context).toMatch(/^API error: \[\{"status":"409","code":"duplicate_merchant",.*\}\]$/);
      expect(said[2], context).toBe('skipped: an earlier call failed (rm "$API_FAILED" to go on)');
      expect(stdout, context).not.toMatch(/^null$/m);
      expect(pasted.clockOffset.before, context).toMatch(/^\d+$/);
      expect(pasted.clockOffset.after, context).toBe(pasted.clockOffset.before);
    });
  });
});
