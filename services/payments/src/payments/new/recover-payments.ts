import type { Config } from '@pps/shared/config';
import { type Db, schema, sendTogether, withTransaction } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import { and, asc, inArray, lt, sql } from 'drizzle-orm';
import type { Processor } from '../../processor/processor';
import { recordOutcomes } from './record-outcomes';

const { paymentClaims: claims } = schema;

/** Records resolved per transaction. */
const RECOVERY_BATCH = 100;

export type RecoveryDeps = { db: Db; config: Config; log: Logger; processor: Processor };

/**
 * The recovery job (docs/design.md, Failure behaviour): new payments a crash left between their phases, claimed
 * (`payment_claims`) for longer than PAYMENT_RECOVERY_AFTER_SECONDS (real time), are finished as phase 3 would have
 * finished them (`recordOutcomes`): by the processor's answer, asked again by the payment's id, else failed
 * `processing_abandoned`. The answer is the client's retry's, as phase 3's would have been. In batches, oldest
 * first: the processor is asked outside any transaction, then the batch's claims are locked `FOR UPDATE SKIP LOCKED`
 * (a claim its own request or another recovery is taking is left to it) and recorded in one transaction, one
 * statement per table; a claim taken meanwhile is gone, and skipped. The threshold must exceed the processor's own
 * timeout, so a call still waiting for its answer is never taken for a lost one. Returns how many it finished.
 */
export async function recoverPayments(
  deps: RecoveryDeps,
  options: { now: Date; signal?: AbortSignal },
): Promise<{ recorded: number; abandoned: number }> {
  const cutoff = new Date(options.now.getTime() - deps.config.PAYMENT_RECOVERY_AFTER_SECONDS * 1000);
  const totals = { recorded: 0, abandoned: 0 };
  let after: { since: Date; id: string } | undefined;
  while (!options.signal?.aborted) {
    const batch = await deps.db
      .select({
        id: claims.id,
        merchantId: claims.merchantId,
        createdAt: claims.createdAt,
        processingSince: claims.processingSince,
      })
      .from(claims)
      .where(
        and(
          lt(claims.processingSince, cutoff),
          // Past the previous batch: a claim another worker held stays, and is not asked twice.
          after &&
            sql`(${claims.processingSince}, ${claims.id}) > (${after.since.toISOString()}::timestamptz, ${after.id})`,
        ),
      )
      .orderBy(asc(claims.processingSince), asc(claims.id))
      .limit(RECOVERY_BATCH);
    if (batch.length === 0) break;
    const answers = await Promise.all(batch.map((row) => deps.processor.lookup(row.id)));
    await withTransaction(deps.db, async (tx) => {
      const claimed = await tx
        .select({ id: claims.id })
        .from(claims)
        .where(
          inArray(
            claims.id,
            batch.map((row) => row.id),
          ),
        )
        .for('update', { skipLocked: true });
      const mine = new Set(claimed.map((row) => row.id));
      const items = batch.flatMap((row, index) => {
        if (!mine.has(row.id)) return [];
        // The account's sandbox clock, as far as the record tells: its creation time plus the real time since.
        const elapsed = options.now.getTime() - (row.processingSince ?? options.now).getTime();
        const answer = answers[index] ?? null;
        return [{ claimed: row, answer, now: new Date(row.createdAt.getTime() + elapsed) }];
      });
      if (items.length === 0) return;
      const { answers: recorded, writes } = await recordOutcomes(deps, tx, items);
      if (writes.length > 0) await sendTogether(tx, writes);
      recorded.forEach((response, index) => {
        if (!response) return;
        if (items[index]?.answer) totals.recorded += 1;
        else totals.abandoned += 1;
      });
    });
    const last = batch[batch.length - 1];
    after = last?.processingSince ? { since: last.processingSince, id: last.id } : undefined;
    if (batch.length < RECOVERY_BATCH) break;
  }
  if (totals.recorded + totals.abandoned > 0) deps.log.warn(totals, 'payments left processing recovered');
  return totals;
}
