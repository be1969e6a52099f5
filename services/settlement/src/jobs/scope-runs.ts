import { runDisputes, runPayouts } from '@pps/payments';
import { runSettlementPass } from '../settlement/pass';
import type { JobInput } from './job-handler';

/** What the clock-tick and payout-run jobs share: a scope (`accountId`, or every account) and their deps. */
type ScopeJob = Pick<JobInput<'clockTick' | 'payoutRun'>, 'deps' | 'payload' | 'log' | 'signal'>;

/** A settlement pass for the job's scope, timed and counted. */
export async function settleScope({ deps, payload, log, signal }: ScopeJob): Promise<void> {
  const started = performance.now();
  const result = await runSettlementPass(
    { db: deps.db, config: deps.config, cipher: deps.cipher, processor: deps.processor, log },
    { now: new Date(), batchSize: deps.config.SETTLEMENT_BATCH_SIZE, accountId: payload.accountId, signal },
  );
  deps.metrics?.settlementPassDuration.observe((performance.now() - started) / 1000);
  deps.metrics?.settlementRecords.inc({ outcome: 'settled' }, result.settled);
  deps.metrics?.settlementRecords.inc({ outcome: 'returned' }, result.returned);
  deps.metrics?.settlementRecords.inc({ outcome: 'authorization_expired' }, result.expired);
  deps.metrics?.settlementRecords.inc({ outcome: 'authentication_abandoned' }, result.abandoned);
}

/** The disputes of the job's scope: the network's new ones stored, the due ones lost or decided (`runDisputes`). */
export async function disputeScope({ deps, payload, log, signal }: ScopeJob): Promise<void> {
  await runDisputes(
    { db: deps.db, config: deps.config, processor: deps.processor, log },
    { now: new Date(), accountId: payload.accountId, signal },
  );
}

/** The payouts of the job's scope, made, filed and advanced (`runPayouts`), counted by status. */
export async function payScope({ deps, payload, log, signal }: ScopeJob): Promise<void> {
  const result = await runPayouts(
    { db: deps.db, config: deps.config, cipher: deps.cipher, bank: deps.processor, log },
    { now: new Date(), accountId: payload.accountId, signal },
  );
  for (const status of ['created', 'paid', 'failed'] as const) {
    deps.metrics?.payouts.inc({ status }, result[status].count);
    deps.metrics?.payoutAmount.inc({ status }, result[status].amount);
  }
}
