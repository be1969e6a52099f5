import type { Logger } from '@pps/shared/logger';
import { lapseBatch } from './lapse-authorizations';
import { type SettleBatchDeps, settleBatch } from './settle-batch';
import { accountsAhead } from './settlement.repository';

export type PassResult = {
  batches: number;
  settled: number;
  returned: number;
  /** Authorizations voided because they lapsed uncaptured. */
  expired: number;
  achFileIds: string[];
};

/**
 * A settlement pass: batches until nothing due is left, or until `signal` aborts (the process is stopping: the
 * batch in flight finishes). For one account, by its clock; for all, first every record due by the real clock,
 * then each account whose sandbox clock is ahead, by its own. In each scope, what is due settles first, then the
 * authorizations lapsed uncaptured are voided. Each batch is its own transaction, so a pass killed midway keeps
 * what it committed and the next pass takes the rest.
 */
export async function runSettlementPass(
  deps: SettleBatchDeps & { log: Logger },
  input: { now: Date; batchSize: number; accountId?: string; signal?: AbortSignal },
): Promise<PassResult> {
  const total: PassResult = { batches: 0, settled: 0, returned: 0, expired: 0, achFileIds: [] };
  const scopes = input.accountId ? [input.accountId] : [undefined, ...(await accountsAhead(deps.db))];
  const batch = { now: input.now, limit: input.batchSize };
  for (const accountId of scopes) {
    while (!input.signal?.aborted) {
      const settled = await settleBatch(deps, { ...batch, accountId });
      if (settled.claimed === 0) break;
      total.batches += 1;
      total.settled += settled.settled;
      total.returned += settled.returned;
      if (settled.achFileId) total.achFileIds.push(settled.achFileId);
      if (settled.claimed < input.batchSize) break;
    }
    while (!input.signal?.aborted) {
      const { claimed } = await lapseBatch(deps, { ...batch, accountId });
      if (claimed === 0) break;
      total.batches += 1;
      total.expired += claimed;
      if (claimed < input.batchSize) break;
    }
  }
  if (total.batches > 0) deps.log.info({ accountId: input.accountId, ...total }, 'settlement pass done');
  return total;
}
