import { takeHealthSample } from '@pps/gateway';
import { jobs, type QueueName, queuePrefixOf, queues } from '@pps/shared/queues';
import { queuePrefix, testRedisUrl } from '@pps/shared/testing';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createWorld } from '../../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../../harness';
import { waitFor } from '../../wait';
import { consoleClient } from './console-client';
import { CUSTOMER_ACCOUNT_NUMBER, operatorWorld } from './console-operator-world';

/**
 * The operator's console pages, in-process: Health (each role's health, each queue's figures as Redis has them, the
 * outbox, the last runs, the last hour's samples as charts and tables), the samples settlement keeps a minute and
 * trims past two hours, ACH files (list, detail without account numbers, download) and settlement reports (the
 * account's API report, read for it). An account's viewer reaches none of them.
 */

let stack: TestStack;
let acme: Awaited<ReturnType<typeof operatorWorld>>;
let globex: Credentials;
/** Queues of a prefix no worker serves, holding the jobs the test put there. */
let idle: Record<QueueName, Queue>;
const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });

/** The oldest waiting settlement job was added this long ago. */
const WAITED_MS = 125_000;

/** Idle queues with known jobs: maintenance one failed, settlement three waiting, webhooks two delayed. */
async function idleQueues(): Promise<Record<QueueName, Queue>> {
  const config = { QUEUE_PREFIX: queuePrefix('test', inject('runId')) };
  const made = Object.fromEntries(
    Object.values(queues).map((name) => [name, new Queue(name, { connection, prefix: queuePrefixOf(config, name) })]),
  ) as Record<QueueName, Queue>;
  await made.settlement.add(jobs.clockTick.name, {}, { timestamp: Date.now() - WAITED_MS });
  await made.settlement.add(jobs.clockTick.name, {});
  await made.settlement.add(jobs.payoutRun.name, {});
  await made.webhooks.add(jobs.eventRetention.name, {}, { delay: 600_000 });
  await made.webhooks.add(jobs.eventRetention.name, {}, { delay: 600_000 });
  await made.maintenance.add(jobs.healthSample.name, {}, { attempts: 1 });
  const failing = new Worker(
    queues.maintenance,
    async () => {
      throw new UnrecoverableError('failed on purpose');
    },
    { connection, prefix: queuePrefixOf(config, queues.maintenance) },
  );
  await waitFor(() => made.maintenance.getJobCountByTypes('failed'), { until: (n) => n === 1, what: 'a failed job' });
  await failing.close();
  return made;
}

beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
  [acme, globex, idle] = await Promise.all([
    operatorWorld(stack, 'Acme'),
    createWorld(stack, { account: 'Globex', token: false }).then((world) => world.creds),
    idleQueues(),
  ]);
}, 90_000);
afterAll(async () => {
  await Promise.all(
    Object.values(idle ?? {}).map((queue) => queue.obliterate({ force: true }).then(() => queue.close())),
  );
  await stack?.close();
  await connection.quit();
});

const operator = async (gateway = stack) => {
  const browser = consoleClient(gateway);
  await browser.signIn(stack.config.ADMIN_TOKEN);
  return browser;
};

/** A gateway over the same stack whose queues are the idle ones. */
const idleGateway = () =>
  ({ ...stack, gateway: stack.anotherGateway({ queues: Object.values(idle) }) }) as unknown as TestStack;

/** The text of an HTML fragment: tags dropped, the entities the pages use decoded. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

/** The cells of the row headed `header` in the table captioned `caption`, as text (the header first). */
function row(html: string, caption: string, header: string): string[] | undefined {
  const table = html.split(`<caption>${caption}</caption>`)[1]?.split('</table>')[0];
  const rows = [...(table ?? '').matchAll(/<tr>(.*?)<\/tr>/gs)].map((match) =>
    [...match[1]!.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/gs)].map((cell) => textOf(cell[1]!)),
  );
  return rows.find((cells) => cells[0] === header);
}

/** The value of a field of the page's definition list. */
const field = (html: string, label: string) => textOf(html.split(`<dt>${label}</dt><dd>`)[1]?.split('</dd>')[0] ?? '');

describe('who reaches the operator pages', () => {
  it("sends an account's viewer home from each of them, and serves it no file", async () => {
    const browser = consoleClient(stack);
    await browser.signIn(globex.apiKey);
    for (const path of [
      '/console/health',
      '/console/ach-files',
      `/console/ach-files/${acme.fileId}`,
      `/console/ach-files/${acme.fileId}/download`,
      `/console/settlement-reports?account=${acme.creds.accountId}&date=${acme.day}`,
    ]) {
      const res = await browser.get(path);
      expect([path, res.status, res.headers.get('location')]).toEqual([path, 303, '/console']);
      expect(res.text).not.toContain('ACH');
    }
  });
});

describe('health', () => {
  it('lists each role and queue with the figures of what is in the queues', async () => {
    const browser = await operator(idleGateway());
    const page = await browser.get('/console/health');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Health</h1>');
    expect(page.text).toContain('aria-current="page">Health</a>');

    const roles = "Each process role's health, now".replace("'", '&#39;');
    expect(row(page.text, roles, 'gateway')?.slice(0, 3)).toEqual([
      'gateway',
      'ready',
      'database: ok; redis: not configured',
    ]);
    for (const service of ['payments', 'merchants']) {
      expect(row(page.text, roles, service)?.slice(0, 3)).toEqual([service, 'ready', 'database: ok']);
    }
    // No worker serves the idle queues' prefix (the one that failed a job has gone).
    expect(row(page.text, roles, 'settlement')?.slice(0, 3)).toEqual([
      'settlement',
      'not ready',
      'maintenance workers: no worker; settlement workers: no worker',
    ]);
    expect(row(page.text, roles, 'webhooks')?.slice(0, 3)).toEqual([
      'webhooks',
      'not ready',
      'webhooks workers: no worker',
    ]);

    // Queue, run by, depth, waiting, active, delayed, failed, oldest job waiting.
    expect(row(page.text, 'Each queue, now', 'maintenance')).toEqual([
      'maintenance',
      'settlement',
      '0',
      '0',
      '0',
      '0',
      '1',
      '0 s',
    ]);
    const settlement = row(page.text, 'Each queue, now', 'settlement');
    expect(settlement?.slice(0, 7)).toEqual(['settlement', 'settlement', '3', '3', '0', '0', '0']);
    expect(settlement?.[7]).toMatch(/^2 min [5-9] s$/);
    expect(row(page.text, 'Each queue, now', 'webhooks')).toEqual([
      'webhooks',
      'webhooks',
      '2',
      '0',
      '0',
      '2',
      '0',
      '0 s',
    ]);
    expect(field(page.text, 'Last settlement run')).toBe('none among the newest finished jobs');
    expect(page.text).toContain('href="/admin/queues"');
  });

  it("shows the outbox's backlog as PostgreSQL has it, and the last runs settlement finished", async () => {
    const browser = await operator();
    const lastPass = await waitFor(() => stack.settlement!.queues.settlement.getJobs(['completed'], 0, 0, false), {
      until: (done) => done.some((job) => job.name === jobs.clockTick.name),
      what: 'a finished pass',
    });
    const count = async () => (await stack.sql<{ n: number }[]>`select count(*)::int as n from unrelayed_events`)[0]!.n;
    const before = await count();
    const page = await browser.get('/console/health');
    const after = await count();
    expect(before).toBeGreaterThan(0); // no webhooks process here: every event waits for the relay
    expect([String(before), String(after)]).toContain(field(page.text, 'Events waiting for the outbox relay'));
    expect(field(page.text, 'Outbox lag (the oldest of them)')).toMatch(/^\d+ (s|min \d+ s)$/);
    expect(field(page.text, 'Last settlement run')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, completed \(/);
    expect(lastPass[0]?.finishedOn).toBeDefined();

    // This stack runs settlement (its workers are connected) but no webhooks process (its queue is no queue here).
    const roles = "Each process role's health, now".replace("'", '&#39;');
    expect(row(page.text, roles, 'settlement')?.slice(0, 3)).toEqual([
      'settlement',
      'ready',
      'maintenance workers: 1 connected; settlement workers: 1 connected',
    ]);
    expect(row(page.text, roles, 'webhooks')?.slice(1, 3)).toEqual([
      'unknown',
      'queues: not configured in this gateway',
    ]);
  });

  it("charts the last hour's samples, each chart with its figures as a table", async () => {
    // Settlement's maintenance worker takes a sample at its start, then each minute.
    const sampled = () =>
      stack.sql<{ taken_at: string; queues: { queue: string; depth: number }[] }[]>`
        select taken_at::text, queues from health_samples order by taken_at`;
    await waitFor(sampled, { until: (rows) => rows.length > 0, what: 'a health sample', timeoutMs: 30_000 });
    const browser = await operator();
    const page = await browser.get('/console/health');
    const charts = [...page.text.matchAll(/data-chart="([^"]*)"/g)].map((match) => JSON.parse(textOf(match[1]!)));
    expect(charts).toHaveLength(3);
    const [depth] = charts;
    // Those the page read: a sample the minute's job took since is not in it.
    const last = depth.x.at(-1) * 1000;
    const samples = (await sampled()).filter((sample) => Date.parse(sample.taken_at) < last + 1000);
    expect(depth.x).toEqual(samples.map((sample) => Math.floor(Date.parse(sample.taken_at) / 1000)));
    expect(depth.series.map((line: { label: string }) => line.label)).toEqual([
      'maintenance',
      'settlement',
      'webhooks',
    ]);
    const settlementDepths = samples.map((sample) => sample.queues.find((q) => q.queue === 'settlement')?.depth);
    expect(depth.series[1].values).toEqual(settlementDepths);
    expect(page.text).toContain('aria-hidden="true"');
    const caption = 'Queue depth (waiting, delayed and prioritized jobs), a sample a minute';
    const minute = `${new Date(samples[0]!.taken_at).toISOString().slice(11, 16)} UTC`;
    expect(row(page.text, caption, minute)?.[2]).toBe(String(settlementDepths[0]));
  });
});

describe('the health samples', () => {
  it("keep each queue's figures and the outbox's, and lose those past two hours", async () => {
    const now = new Date();
    const at = (msAgo: number) => new Date(now.getTime() - msAgo).toISOString();
    await stack.sql`
      insert into health_samples (taken_at, queues, outbox_unrelayed, outbox_lag_seconds)
      values (${at(3 * 3600_000)}::timestamptz, '[]', 0, 0), (${at(90 * 60_000)}::timestamptz, '[]', 0, 0)`;
    const taken = await takeHealthSample({ db: stack.db, queues: Object.values(idle), now });
    expect(taken).toEqual({ queues: 3, removed: 1 });
    const [sample] = await stack.sql<{ queues: Record<string, number | string>[]; outbox_unrelayed: number }[]>`
      select queues, outbox_unrelayed from health_samples where taken_at = ${now.toISOString()}::timestamptz`;
    expect(sample!.queues).toEqual([
      { queue: 'maintenance', depth: 0, waiting: 0, active: 0, delayed: 0, failed: 1, oldestWaitSeconds: 0 },
      {
        queue: 'settlement',
        depth: 3,
        waiting: 3,
        active: 0,
        delayed: 0,
        failed: 0,
        oldestWaitSeconds: expect.any(Number),
      },
      { queue: 'webhooks', depth: 2, waiting: 0, active: 0, delayed: 2, failed: 0, oldestWaitSeconds: 0 },
    ]);
    expect(sample!.queues[1]!.oldestWaitSeconds).toBeGreaterThanOrEqual(WAITED_MS / 1000);
    const kept = await stack.sql<{ taken_at: string }[]>`
      select taken_at::text from health_samples where taken_at < ${at(60_000)}::timestamptz`;
    const instants = kept.map((row) => new Date(row.taken_at).toISOString());
    expect(instants).toContain(at(90 * 60_000));
    expect(instants).not.toContain(at(3 * 3600_000));
  });

  it('are taken by the health-sample job on settlement’s maintenance queue', async () => {
    const schedulers = await stack.settlement!.queues.maintenance.getJobSchedulers();
    expect(schedulers.find((scheduler) => scheduler.key === jobs.healthSample.name)?.every).toBe(60_000);
    const before = new Date().toISOString();
    await stack.settlement!.queues.maintenance.add(jobs.healthSample.name, {});
    const [sample] = await waitFor(
      () => stack.sql<{ queues: { queue: string }[] }[]>`
        select queues from health_samples where taken_at >= ${before}::timestamptz order by taken_at desc limit 1`,
      { until: (rows) => rows.length === 1, what: 'a sample taken by the job' },
    );
    expect(sample!.queues.map((figure) => figure.queue)).toEqual(['maintenance', 'settlement', 'webhooks']);
  });
});

describe('ACH files', () => {
  it('lists the files newest first and shows one by its entries, never an account number', async () => {
    const browser = await operator();
    const list = await browser.get('/console/ach-files');
    expect(list.status).toBe(200);
    expect(list.text).toContain('<caption>ACH files, newest first</caption>');
    const listed = row(list.text, 'ACH files, newest first', acme.fileId);
    expect(listed?.slice(2, 6)).toEqual(['1', '1', '$20.00', '$0.00']);
    expect(listed?.[6]).toBe('1 payment');

    const page = await browser.get(`/console/ach-files/${acme.fileId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<h1>ACH file ${acme.fileId}</h1>`);
    const [debit] = await stack.sql<{ trace_number: string; status: string }[]>`
      select trace_number, status from payments where id = ${acme.debitId}`;
    expect(row(page.text, `Entries of ${acme.fileId}, in file order`, debit!.trace_number)).toEqual([
      debit!.trace_number,
      'debit',
      '27',
      '$20.00',
      `payment ${acme.debitId}`,
      debit!.status,
    ]);
    expect(field(page.text, 'Total debit')).toBe('$20.00');
    expect(page.text).not.toContain(CUSTOMER_ACCOUNT_NUMBER);
    expect(page.text).toContain(`href="/console/ach-files/${acme.fileId}/download"`);
    expect((await browser.get('/console/ach-files/achf_nope')).status).toBe(404);
  });

  it('downloads the file as the admin API serves it, a plain-text attachment', async () => {
    const browser = await operator();
    const download = await browser.get(`/console/ach-files/${acme.fileId}/download`);
    const admin = await stack.call('GET', `/admin/ach-files/${acme.fileId}`, { headers: stack.admin });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('text/plain; charset=us-ascii');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="${acme.fileId}.ach"`);
    expect(download.headers.get('cache-control')).toBe('no-store');
    expect(download.text).toBe(admin.body);
    expect(download.text).toContain(CUSTOMER_ACCOUNT_NUMBER);
  });
});

describe('settlement reports', () => {
  it("shows the account's report of the day, its totals the API's", async () => {
    const browser = await operator();
    const form = await browser.get('/console/settlement-reports');
    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="account">Account</label>');
    expect(form.text).toContain('<label for="date">Settlement day</label>');
    expect(form.text).toContain(`<option value="${acme.creds.accountId}">Acme (${acme.creds.accountId})</option>`);
    expect(form.text).toContain('href="/admin/queues"');

    const page = await browser.get(`/console/settlement-reports?account=${acme.creds.accountId}&date=${acme.day}`);
    expect(page.status).toBe(200);
    const api = await stack.call('GET', `/reports/settlement?date=${acme.day}`, { as: acme.creds });
    const { totals, merchants } = api.body.data.attributes;
    expect(totals.count).toBeGreaterThan(0);
    const dollars = (cents: string) => `$${(Number(cents) / 100).toFixed(2)}`;
    const caption = `Settlement of Acme on ${acme.day}, per merchant, then the total`;
    const expected = (figures: typeof totals) => [
      String(figures.count),
      ...['gross', 'fees', 'refunds', 'net', 'disputed', 'disputeFees', 'reinstated'].map((name) =>
        dollars(figures[name]),
      ),
    ];
    expect(row(page.text, caption, 'Total')).toEqual(['Total', ...expected(totals)]);
    expect(row(page.text, caption, acme.merchantId)).toEqual([acme.merchantId, ...expected(merchants[0])]);
    expect(page.text).toContain(`<option value="${acme.creds.accountId}" selected="">`);
  });

  it('says what the API refused, and that an account is unknown', async () => {
    const browser = await operator();
    const unknown = await browser.get(`/console/settlement-reports?account=acct_nope&date=${acme.day}`);
    expect(unknown.text).toContain('There is no account acct_nope.');
    const wrongDay = await browser.get(`/console/settlement-reports?account=${acme.creds.accountId}&date=2026-13-01`);
    expect(wrongDay.text).toContain('role="alert"');
    expect(wrongDay.text).toContain('date must be a calendar date as YYYY-MM-DD');
  });
});
