import type { schema } from '@pps/shared/db';
import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import type { OutboxLag } from '../../health/lag';
import type { Run } from '../../health/last-runs';
import { CHARTED_MS, type OperatorHealth, operatorHealthReader } from '../../health/operator-health';
import { ROLE_QUEUES, type RoleHealth } from '../../health/roles';
import { OUTBOX_COUNT_CAP } from '../../health/samples.repository';
import { Chart, type ChartSeries } from '../components/chart';
import { when } from '../components/format';
import { Layout, Notice } from '../components/layout';
import { Fields, Table } from '../components/table';
import type { ConsoleEnv } from '../console-env';

/** 42 → "42 s", 185 → "3 min 5 s", 7440 → "2 h 4 min": a wait as an operator reads it. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The role whose workers run a queue ("gateway" enqueues only). */
const roleOfQueue = (queue: string) =>
  (Object.keys(ROLE_QUEUES) as (keyof typeof ROLE_QUEUES)[]).find((role) =>
    (ROLE_QUEUES[role] as string[]).includes(queue),
  ) ?? '—';

const STATUS_CLASS: Record<RoleHealth['status'], string> = {
  ready: 'status completed',
  'not ready': 'status failed',
  unknown: 'status',
};

/** Where each role's health is read from, in a few words. */
const READ_FROM: Record<RoleHealth['role'], string> = {
  gateway: "this gateway's /readyz checks",
  payments: 'its /readyz',
  merchants: 'its /readyz',
  settlement: 'its workers connected to Redis',
  webhooks: 'its workers connected to Redis',
};

const RolesTable = ({ roles }: { roles: RoleHealth[] }) => (
  <Table
    caption="Each process role's health, now"
    headers={['Role', 'Status', 'Checks', 'Read from']}
    empty="No role answered."
    rows={roles.map((role) => [
      role.role,
      <span class={STATUS_CLASS[role.status]}>{role.status}</span>,
      Object.entries(role.checks)
        .map(([name, state]) => `${name}: ${state}`)
        .join('; '),
      READ_FROM[role.role],
    ])}
  />
);

const QueuesTable = ({ figures }: { figures: schema.QueueSample[] }) => (
  <Table
    caption="Each queue, now"
    headers={['Queue', 'Run by', 'Depth', 'Waiting', 'Active', 'Delayed', 'Failed', 'Oldest job waiting']}
    empty="This gateway was given no queue (it runs without Redis), or Redis did not answer."
    rows={figures.map((figure) => [
      figure.queue,
      roleOfQueue(figure.queue),
      String(figure.depth),
      String(figure.waiting),
      String(figure.active),
      String(figure.delayed),
      String(figure.failed),
      duration(figure.oldestWaitSeconds),
    ])}
  />
);

const unrelayedText = (unrelayed: number) =>
  unrelayed > OUTBOX_COUNT_CAP ? `more than ${OUTBOX_COUNT_CAP.toLocaleString('en-US')}` : String(unrelayed);

/** A run as one line: when it finished, how, and whether it was every account's or one account's. */
const runText = (run: Run | undefined, known: boolean) => {
  if (!known) return 'not known here (no settlement queue, or Redis did not answer)';
  if (!run) return 'none among the newest finished jobs';
  const scope = run.accountId ? `account ${run.accountId}` : 'every account';
  return `${when(run.finishedAt.toISOString())}, ${run.outcome} (${scope})`;
};

const LagFields = ({ outbox, health }: { outbox: OutboxLag; health: OperatorHealth }) => (
  <Fields
    fields={[
      ['Events waiting for the outbox relay', unrelayedText(outbox.unrelayed)],
      ['Outbox lag (the oldest of them)', duration(outbox.lagSeconds)],
      ['Last settlement run', runText(health.lastRuns?.settlement, health.lastRuns !== undefined)],
      ['Last payout run', runText(health.lastRuns?.payout, health.lastRuns !== undefined)],
    ]}
  />
);

/** The queues the samples name, in the order they first appear. */
const sampledQueues = (samples: schema.HealthSample[]) => [
  ...new Set(samples.flatMap((sample) => sample.queues.map((figure) => figure.queue))),
];

/** One line per queue of one figure of the samples; a gap where a sample has no figure for the queue. */
const queueSeries = (
  samples: schema.HealthSample[],
  figure: 'depth' | 'oldestWaitSeconds',
  unit: ChartSeries['unit'],
): ChartSeries[] =>
  sampledQueues(samples).map((queue) => ({
    label: queue,
    unit,
    values: samples.map((sample) => sample.queues.find((entry) => entry.queue === queue)?.[figure] ?? null),
  }));

const LastHour = ({ samples, now }: { samples: schema.HealthSample[]; now: Date }) => {
  if (samples.length === 0) {
    return (
      <p class="empty">
        No samples in the last hour: settlement's maintenance worker takes one a minute (the health-sample job), so none
        is kept while no settlement process runs.
      </p>
    );
  }
  const x = samples.map((sample) => sample.takenAt.toISOString());
  const rows = x.map((instant) => `${instant.slice(11, 16)} UTC`);
  const xRange: [string, string] = [new Date(now.getTime() - CHARTED_MS).toISOString(), now.toISOString()];
  // What the three charts share: the last hour's samples along x, and the same rows in their tables.
  const sampled = { x, xLabel: 'Sampled at', rows, xRange };
  return (
    <>
      <Chart
        title="Queue depth (waiting, delayed and prioritized jobs), a sample a minute"
        {...sampled}
        series={queueSeries(samples, 'depth', 'count')}
      />
      <Chart
        title="Oldest job waiting in each queue, a sample a minute"
        {...sampled}
        series={queueSeries(samples, 'oldestWaitSeconds', 'seconds')}
      />
      <Chart
        title="Outbox: events waiting for the relay and the oldest one's age, a sample a minute"
        {...sampled}
        series={[
          { label: 'Events waiting', unit: 'count', values: samples.map((sample) => sample.outboxUnrelayed) },
          { label: 'Outbox lag', unit: 'seconds', values: samples.map((sample) => sample.outboxLagSeconds) },
        ]}
      />
    </>
  );
};

/**
 * GET /console/health, the operator's: each process role's health and lag now (queue depth and oldest job, the
 * outbox's lag, the last settlement and payout runs), and charts of the last hour from the samples settlement keeps
 * each minute, each with its figures as a table. An account's viewer is sent to its home.
 */
export function registerHealthPages(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  const read = operatorHealthReader(deps);
  app.get('/console/health', async (c) => {
    const viewer = c.get('viewer');
    if (viewer.kind !== 'operator') return c.redirect('/console', 303);
    const now = new Date();
    const health = await read({ requestId: c.get('requestId'), now });
    return c.html(
      <Layout title="Health" viewer={viewer} current="/console/health" charts>
        <p>
          Each process role's health as its readiness checks say, and its lag, read as this page was made. Reload for
          the figures of now.
        </p>
        <section aria-labelledby="roles">
          <h2 id="roles">Process roles</h2>
          <RolesTable roles={health.roles} />
        </section>
        <section aria-labelledby="lag">
          <h2 id="lag">Lag</h2>
          {health.unread.length > 0 && (
            <Notice kind="error">{`Redis did not answer for the queues ${health.unread.join(', ')}.`}</Notice>
          )}
          <QueuesTable figures={health.lag.queues} />
          <LagFields outbox={health.lag.outbox} health={health} />
          <p>
            Every job of each queue, with its retries and failures, is on the <a href="/admin/queues">queue board</a>.
            It is not part of the console's session: the browser asks for the admin token there (any user name, the
            token as the password).
          </p>
        </section>
        <section aria-labelledby="hour">
          <h2 id="hour">The last hour</h2>
          <LastHour samples={health.samples} now={now} />
        </section>
      </Layout>,
    );
  });
}
