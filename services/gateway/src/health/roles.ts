import type { ServiceName } from '@pps/shared/contract';
import { checkReadiness, type Readiness } from '@pps/shared/health';
import { type QueueName, queues } from '@pps/shared/queues';
import type { Queue } from 'bullmq';
import type { GatewayDeps } from '../deps';
import type { Upstream } from '../proxy/upstream';
import { gatewayReadinessChecks } from './health.routes';
import { bounded } from './lag';

/** The process roles, in the order the platform's requests reach them. */
export const ROLES = ['gateway', 'payments', 'merchants', 'settlement', 'webhooks'] as const;
export type Role = (typeof ROLES)[number];

/** The queues whose workers each worker role runs (the gateway only enqueues). */
export const ROLE_QUEUES: Record<'settlement' | 'webhooks', QueueName[]> = {
  settlement: [queues.maintenance, queues.settlement],
  webhooks: [queues.webhooks],
};

/**
 * A role's health as the gateway can tell it: `ready` or `not ready` as its `/readyz` says (or, for a worker role,
 * whether each of its queues has a worker connected), `unknown` when there is nothing to ask; its checks, and how
 * they were read.
 */
export type RoleHealth = { role: Role; status: Readiness['status'] | 'unknown'; checks: Record<string, string> };

/** A service's `/readyz` answers within a second by design; past this it counts as unreachable. */
const READYZ_TIMEOUT_MS = 1500;

/** The checks this gateway's `/readyz` runs, run here. */
async function gatewayHealth(checks: ReturnType<typeof gatewayReadinessChecks>): Promise<RoleHealth> {
  return { role: 'gateway', ...(await checkReadiness(checks)) };
}

const isReadiness = (body: unknown): body is Readiness =>
  typeof body === 'object' &&
  body !== null &&
  ((body as Readiness).status === 'ready' || (body as Readiness).status === 'not ready') &&
  typeof (body as Readiness).checks === 'object';

/** A service's own `/readyz`, asked through the gateway's upstream (its app in this process, or its URL). */
async function serviceHealth(
  deps: Pick<GatewayDeps, 'config'>,
  role: ServiceName,
  upstream: Upstream,
  requestId: string,
) {
  const answer = await bounded(async () => {
    const response = await upstream.fetch({
      url: new URL('/readyz', deps.config.PUBLIC_BASE_URL),
      method: 'GET',
      headers: new Headers({ 'x-request-id': requestId, accept: 'application/json' }),
      body: undefined,
      caller: { accountId: 'operator', appId: 'console', clockOffsetSeconds: 0, requestId },
    });
    const body: unknown = await response.json();
    return isReadiness(body) ? body : undefined;
  }, READYZ_TIMEOUT_MS);
  const readiness: Readiness = answer ?? { status: 'not ready', checks: { readyz: 'unreachable' } };
  return { role, ...readiness } satisfies RoleHealth;
}

/**
 * A worker role's health from what BullMQ keeps in Redis: the workers connected to each of its queues (each worker
 * names its connection; `Queue.getWorkersCount` lists them). A worker role's own `/readyz` is on its metrics port,
 * on whichever host runs it, which the gateway is not told; a worker connected is one whose Redis answers, and each
 * job it takes needs the database.
 */
async function workerRoleHealth(role: 'settlement' | 'webhooks', known: Queue[]): Promise<RoleHealth> {
  const own = ROLE_QUEUES[role].map((name) => known.find((queue) => queue.name === name));
  if (own.some((queue) => queue === undefined)) {
    return { role, status: 'unknown', checks: { queues: 'not configured in this gateway' } };
  }
  const counts = await Promise.all(own.map((queue) => bounded(() => queue!.getWorkersCount())));
  const checks = Object.fromEntries(
    own.map((queue, index) => {
      const count = counts[index];
      const state = count === undefined ? 'unreachable' : count === 0 ? 'no worker' : `${count} connected`;
      return [`${queue!.name} workers`, state];
    }),
  );
  const status = counts.some((count) => count === undefined)
    ? 'unknown'
    : counts.every((count) => count! > 0)
      ? 'ready'
      : 'not ready';
  return { role, status, checks };
}

/** Reads every role's health at once; none waits more than about a second and a half. */
export function roleHealthReader(deps: Pick<GatewayDeps, 'config' | 'db' | 'redis' | 'upstreams' | 'queues'>) {
  const checks = gatewayReadinessChecks(deps);
  return (requestId: string): Promise<RoleHealth[]> =>
    Promise.all([
      gatewayHealth(checks),
      serviceHealth(deps, 'payments', deps.upstreams.payments, requestId),
      serviceHealth(deps, 'merchants', deps.upstreams.merchants, requestId),
      workerRoleHealth('settlement', deps.queues ?? []),
      workerRoleHealth('webhooks', deps.queues ?? []),
    ]);
}
