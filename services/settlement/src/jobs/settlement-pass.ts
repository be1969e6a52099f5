import { runSettlementPass } from '../settlement/pass';
import type { JobHandler } from './job-handler';

/**
 * Settles what is due (docs/design.md), for one account when its sandbox clock moved, else for every account.
 * Idempotent: records are claimed with SKIP LOCKED and settled conditionally, so a retried or doubled job
 * settles nothing twice.
 */
export const settlementPass: JobHandler<'settlementPass'> = async ({ deps, payload, log, signal }) => {
  const started = performance.now();
  const result = await runSettlementPass(
    { db: deps.db, config: deps.config, cipher: deps.cipher, processor: deps.processor, log },
    { now: new Date(), batchSize: deps.config.SETTLEMENT_BATCH_SIZE, accountId: payload.accountId, signal },
  );
  deps.metrics?.settlementPassDuration.observe((performance.now() - started) / 1000);
  deps.metrics?.settlementRecords.inc({ outcome: 'settled' }, result.settled);
  deps.metrics?.settlementRecords.inc({ outcome: 'returned' }, result.returned);
};
