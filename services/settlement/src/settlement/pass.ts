import { type Processor, runSettlement, type SettleResult } from '@pps/payments';
import type { Db } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import type { AchFileDeps } from './ach-file';
import { recordSettledBatch } from './record-batch';

export type PassResult = SettleResult;

/**
 * A settlement pass: payments' settle run (what is due settled, lapsed authorizations voided), each of its batches
 * recorded by this service in the batch's own transaction (`recordSettledBatch`: the day's settlement batches, the
 * NACHA file).
 */
export function runSettlementPass(
  deps: AchFileDeps & { db: Db; processor: Processor; log: Logger },
  input: { now: Date; batchSize: number; accountId?: string; signal?: AbortSignal },
): Promise<PassResult> {
  return runSettlement(
    { db: deps.db, processor: deps.processor, log: deps.log, recordSettled: recordSettledBatch(deps) },
    input,
  );
}
