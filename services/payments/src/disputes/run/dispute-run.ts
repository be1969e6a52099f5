import { accountClock } from '@pps/shared/clock';
import type { Config } from '@pps/shared/config';
import { type Db, isDatabaseUnavailable, withTransaction } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import type { NetworkDispute, Processor } from '../../processor/processor';
import { type DisputeMove, moveDispute, openDispute } from '../model/dispute-transitions';
import { type DueDispute, dueDisputes, lockDispute } from '../model/disputes.repository';

export type DisputeRunDeps = { db: Db; config: Config; processor: Processor; log: Logger };
export type DisputeRunResult = { opened: number; expired: number; decided: number };

/** Disputes moved per read of the due ones; each moves in a transaction of its own. */
const BATCH = 100;
/**
 * The network's new disputes stored at once, each in its own transaction on a connection of its own: one at a time,
 * a run stored about fifty a second, each waiting on its own round trips and commit. The transactions take their
 * rows in one order (the payment, then the ledger's balances, then the events), so they queue, never deadlock.
 */
const OPENING_CONCURRENCY = 4;

/**
 * The disputes' run (docs/design.md, Disputes), for one account or every one, each by its own clock: the network's
 * new disputes stored (each once, whatever runs at the same time: `networkId` is unique), the unanswered ones past
 * `dueBy` lost, and the bank's decisions on evidence applied once their day comes. Each dispute moves in its own
 * transaction under its row lock, conditionally on the status it was read in, so a run killed midway, retried or
 * doubled moves nothing twice. The settlement pass runs it after settling (so a moved sandbox clock runs it too).
 */
export async function runDisputes(
  deps: DisputeRunDeps,
  options: {
    now: Date;
    accountId?: string;
    signal?: AbortSignal;
    /** Due disputes read at a time (BATCH; tests set fewer). */
    batch?: number;
  },
): Promise<DisputeRunResult> {
  const wall = { config: deps.config, realNow: options.now };
  const result: DisputeRunResult = { opened: 0, expired: 0, decided: 0 };
  const reports = await deps.processor.disputes({ accountId: options.accountId, now: options.now });
  let next = 0;
  let stopped: { error: unknown } | undefined;
  const openInTurn = async () => {
    while (next < reports.length && !stopped && !options.signal?.aborted) {
      const reported = reports[next++] as NetworkDispute;
      try {
        const opened = await withTransaction(deps.db, (tx) => openDispute(tx, wall, reported));
        if (opened) result.opened += 1;
      } catch (error) {
        // One dispute the platform cannot store (naming no card payment of ours) must not hold back the others; a
        // database that went away stops the run once what is under way has ended, and the next run takes it up.
        if (isDatabaseUnavailable(error)) stopped ??= { error };
        else
          deps.log.error(
            { networkId: reported.networkId, err: (error as Error).message },
            'network dispute not stored',
          );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPENING_CONCURRENCY, reports.length) }, openInTurn));
  if (stopped) throw stopped.error;
  if (options.signal?.aborted) return result;
  for (const due of ['expire', 'decide'] as const) {
    // Each due dispute is read once a run: one it cannot move (its row changed since, or holds what no move takes)
    // is left behind the cursor for the next run, never read again and again by this one.
    const batch = options.batch ?? BATCH;
    let after: DueDispute | undefined;
    for (;;) {
      const read = await dueDisputes(deps.db, {
        due,
        now: options.now,
        accountId: options.accountId,
        limit: batch,
        after,
      });
      after = read.at(-1);
      for (const { id } of read) {
        if (options.signal?.aborted) return result;
        const moved = await withTransaction(deps.db, async (tx) => {
          const dispute = await lockDispute(tx, id);
          if (!dispute) return false;
          const move: DisputeMove = {
            ...wall,
            now: (await accountClock(tx, dispute.accountId, options.now)) ?? options.now,
          };
          if (due === 'expire') {
            if (dispute.status !== 'needs_response' || dispute.dueBy > move.now) return false;
            return (await moveDispute(tx, move, dispute, { status: 'lost' })) !== undefined;
          }
          if (dispute.status !== 'under_review' || !dispute.outcome || !dispute.decidedAt) return false;
          if (dispute.decidedAt > move.now) return false;
          return (await moveDispute(tx, move, dispute, { status: dispute.outcome })) !== undefined;
        });
        if (moved) result[due === 'expire' ? 'expired' : 'decided'] += 1;
      }
      if (read.length < batch) break;
    }
  }
  if (result.opened + result.expired + result.decided > 0) deps.log.info({ ...result }, 'disputes moved');
  return result;
}
