import type { Logger } from '@pps/shared/logger';
import { type SettleBatchDeps, settleBatch } from './settle-batch';
import { accountsAhead } from './settlement.repository';

export type PassResult = { batches: number; settled: number; returned: number; achFileIds: string[] };

/**
 * A settlement pass: batches until nothing due is left, or until `signal` aborts (the process is stopping: the
 * batch in flight finishes). For one account, by its clock; for all, first every record due by the real clock,
 * then each account whose sandbox clock is ahead, by its own. Each batch is its own transaction, so a pass killed
 * midway keeps what it committed and the next pass takes the rest.
 */
export async function runSettlementPass(
  deps: SettleBatchDeps & { log: Logger },
  input: { now: Date; batchSize: number; accountId?: string; signal?: AbortSignal },
): Promise<PassResult> {
  const total: PassResult = { batches: 0, settled: 0, returned: 0, achFileIds: [] };
  const scopes = input.accountId ? [input.accountId] : [undefined, ...(await accountsAhead(deps.db))];
  for (const accountId of scopes) {
    while (!input.signal?.aborted) {
      const batch = await settleBatch(deps, { now: input.now, limit: input.batchSize, accountId });
      if (batch.claimed === 0) break;
      total.batches += 1;
      total.settled += batch.settled;
      total.returned += batch.returned;
      if (batch.achFileId) total.achFileIds.push(batch.achFileId);
      if (batch.claimed < input.batchSize) break;
    }
  }
  if (total.batches > 0) deps.log.info({ accountId: input.accountId, ...total }, 'settlement pass done');
  return total;
}
