import type { Logger } from '@pps/shared/logger';
import { abandonBatch } from './abandon-challenges';
import { lapseBatch } from './lapse-authorizations';
import { accountsAhead } from './settle.repository';
import { type SettleBatchDeps, settleBatch } from './settle-batch';

export type { RecordSettled, SettledRecord } from './settle-batch';

export type SettleResult = {
  batches: number;
  settled: number;
  returned: number;
  /** Authorizations voided because they lapsed uncaptured. */
  expired: number;
  /** Payments voided because nobody answered their 3-D Secure challenge in time. */
  abandoned: number;
  achFileIds: string[];
};

/**
 * The settle run (docs/design.md, Settlement), as `runPayouts` and `runDisputes` are the payouts' and disputes':
 * batches until nothing due is left, or until `signal` aborts (the process is stopping: the batch in flight
 * finishes). For one account, by its clock; for all, first every record due by the real clock, then each account
 * whose sandbox clock is ahead, by its own. In each scope, what is due settles first, then the authorizations
 * lapsed uncaptured are voided, then the payments whose 3-D Secure challenge nobody answered in time. Each batch is its own transaction, in which the settlement service records what
 * it settled (`recordSettled`), so a run killed midway keeps what it committed and the next run takes the rest.
 */
export async function runSettlement(
  deps: SettleBatchDeps & { log: Logger },
  input: { now: Date; batchSize: number; accountId?: string; signal?: AbortSignal },
): Promise<SettleResult> {
  const total: SettleResult = { batches: 0, settled: 0, returned: 0, expired: 0, abandoned: 0, achFileIds: [] };
  const scopes = input.accountId ? [input.accountId] : [undefined, ...(await accountsAhead(deps.db))];
  const batch = { now: input.now, limit: input.batchSize };
  /** Runs `one` batch after batch until one claims less than a full batch, or the process is stopping. */
  const drain = async <B extends { claimed: number }>(one: () => Promise<B>, add: (done: B) => void) => {
    while (!input.signal?.aborted) {
      const done = await one();
      if (done.claimed === 0) return;
      total.batches += 1;
      add(done);
      if (done.claimed < input.batchSize) return;
    }
  };
  for (const accountId of scopes) {
    await drain(
      () => settleBatch(deps, { ...batch, accountId }),
      (settled) => {
        total.settled += settled.settled;
        total.returned += settled.returned;
        if (settled.achFileId) total.achFileIds.push(settled.achFileId);
      },
    );
    await drain(
      () => lapseBatch(deps, { ...batch, accountId }),
      ({ claimed }) => {
        total.expired += claimed;
      },
    );
    await drain(
      () => abandonBatch(deps, { ...batch, accountId }),
      ({ claimed }) => {
        total.abandoned += claimed;
      },
    );
  }
  if (total.batches > 0) deps.log.info({ accountId: input.accountId, ...total }, 'settle run done');
  return total;
}
