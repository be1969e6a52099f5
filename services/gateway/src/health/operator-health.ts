import type { schema } from '@pps/shared/db';
import { queues } from '@pps/shared/queues';
import type { GatewayDeps } from '../deps';
import { type Lag, readLag } from './lag';
import { type LastRuns, readLastRuns } from './last-runs';
import { type RoleHealth, roleHealthReader } from './roles';
import { healthSamplesSince } from './samples.repository';

/** What the console's health page charts: the samples of this long before now. */
export const CHARTED_MS = 60 * 60 * 1000;

/**
 * Everything the operator's health page shows, read at `now`: each role's health, the lag now (queues this gateway
 * knows, the outbox), the last settlement and payout runs (`undefined`: the settlement queue is not known here or
 * Redis did not answer), and the last hour's samples, oldest first. The queues it was given but Redis did not answer
 * for are `unread`.
 */
export type OperatorHealth = {
  roles: RoleHealth[];
  lag: Lag;
  unread: string[];
  lastRuns: LastRuns | undefined;
  samples: schema.HealthSample[];
};

/**
 * The operator's health reader for this gateway's deps: every figure read at once, each from where the roles keep
 * it (their `/readyz`, BullMQ's counts and finished jobs, the outbox, the kept samples), none waiting past its
 * bound, so the page answers while a role is down. It costs the same at any history: no figure counts past rows.
 */
export function operatorHealthReader(deps: Pick<GatewayDeps, 'config' | 'db' | 'redis' | 'upstreams' | 'queues'>) {
  const roleHealth = roleHealthReader(deps);
  const known = deps.queues ?? [];
  const settlement = known.find((queue) => queue.name === queues.settlement);
  return async ({ requestId, now }: { requestId: string; now: Date }): Promise<OperatorHealth> => {
    const [roles, lag, lastRuns, samples] = await Promise.all([
      roleHealth(requestId),
      readLag({ db: deps.db, queues: known, now }),
      settlement ? readLastRuns(settlement) : undefined,
      healthSamplesSince(deps.db, new Date(now.getTime() - CHARTED_MS)),
    ]);
    const read = new Set(lag.queues.map((figure) => figure.queue));
    return {
      roles,
      lag,
      unread: known.map((queue) => queue.name).filter((name) => !read.has(name)),
      lastRuns,
      samples,
    };
  };
}
