import type { AchFileDeps } from '@pps/shared/ach';
import type { CalendarDate } from '@pps/shared/clock';
import { accountClock, accountsAhead, endOfPacificDay, pacificDate, subtractBusinessDays } from '@pps/shared/clock';
import type { Db } from '@pps/shared/db';
import { withTransaction } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import { type AdvancedPayouts, advancePayouts, type PayoutBank } from './advance-payouts';
import { type PayoutRequest, planPayouts, writePayouts } from './create-payouts';
import { claimDueSchedules, type DueSchedule, type PayoutScope } from './due-schedules';
import { type FiledPayouts, filePayouts, fileTransfers } from './file-payouts';
import { debitNegativeBalances, noteNegativeBalances } from './negative-balances';

export type PayoutRunDeps = AchFileDeps & { db: Db; bank: PayoutBank; log?: Logger };

/**
 * What a run did: payouts made, paid and failed (count, and cents moved either way: debits of negative balances
 * included), and the files it wrote.
 */
export type PayoutRunResult = {
  merchants: number;
  created: { count: number; amount: number };
  paid: { count: number; amount: number };
  failed: { count: number; amount: number };
  files: FiledPayouts[];
};

/**
 * The payout run (docs/design.md, Payouts): for each scope (one account by its clock; or every account on real
 * time, then each account whose sandbox clock is ahead, by its own), on business days, pays every due merchant in
 * batches of `batchSize`, each batch one transaction (claim the due schedules, mark them run today, plan the
 * payouts with the minimum, write their NACHA file, write them); then files the manual payouts still unfiled into
 * NACHA files of up to `batchSize` credits; then ends the payouts due by the scope's date as the bank answers; then
 * notes the merchants whose available balance is negative and debits those negative `NEGATIVE_BALANCE_DEBIT_DAYS`
 * business days (`negative-balances.ts`). Each step's batches are transactions of their own, so a run killed midway keeps
 * what it committed and the next run takes the rest; `signal` stops it between batches.
 */
export async function runPayouts(
  deps: PayoutRunDeps,
  input: { now: Date; accountId?: string; batchSize?: number; signal?: AbortSignal },
): Promise<PayoutRunResult> {
  const limit = input.batchSize ?? deps.config.PAYOUT_BATCH_SIZE;
  const result: PayoutRunResult = {
    merchants: 0,
    created: { count: 0, amount: 0 },
    paid: { count: 0, amount: 0 },
    failed: { count: 0, amount: 0 },
    files: [],
  };
  const scopes: PayoutScope[] = input.accountId
    ? [{ accountId: input.accountId }]
    : [{}, ...(await accountsAhead(deps.db)).map((accountId) => ({ accountId }))];
  const stopped = () => input.signal?.aborted === true;
  for (const scope of scopes) {
    const now = scope.accountId ? await accountClock(deps.db, scope.accountId, input.now) : input.now;
    if (!now) continue;
    const today = pacificDate(now);
    while (!stopped()) {
      const batch = await withTransaction(deps.db, async (tx) => {
        const due = await claimDueSchedules(tx, { today, scope, limit });
        const requests = due.map((schedule) => requestOf(schedule, now, today));
        const { plans } = await planPayouts(tx, requests, { minimum: deps.config.PAYOUT_MINIMUM });
        // The batch's payouts are filed as they are made: its NACHA file exists exactly when they do.
        const filed = plans.length > 0 ? await fileTransfers(tx, deps, plans, now) : null;
        for (const { payout } of plans) {
          payout.achFileId = filed!.file.fileId;
          payout.traceNumber = filed!.traceNumbers.get(payout.id)!;
        }
        await writePayouts(tx, plans);
        return { claimed: due.length, plans, file: filed?.file };
      });
      result.merchants += batch.claimed;
      for (const { payout } of batch.plans) add(result.created, payout.amount);
      if (batch.file) result.files.push(batch.file);
      if (batch.claimed < limit) break;
    }
    while (!stopped()) {
      const filed = await withTransaction(deps.db, (tx) => filePayouts(tx, deps, { scope, now, limit }));
      if (!filed) break;
      result.files.push(filed);
      if (filed.payouts < limit) break;
    }
    while (!stopped()) {
      const advanced: AdvancedPayouts = await withTransaction(deps.db, (tx) =>
        advancePayouts(tx, deps, { scope, today, now, limit }),
      );
      for (const payout of advanced.paid) add(result.paid, payout.amount);
      for (const payout of advanced.failed) add(result.failed, payout.amount);
      if (advanced.paid.length + advanced.failed.length < limit) break;
    }
    // After the bank's answers: a debit it returned today leaves a balance negative from today.
    if (!stopped()) await withTransaction(deps.db, (tx) => noteNegativeBalances(tx, { scope, today, now }));
    while (!stopped()) {
      const debits = await withTransaction(deps.db, (tx) =>
        debitNegativeBalances(tx, deps, { scope, today, now, limit }),
      );
      if (!debits) break;
      for (const { payout } of debits.plans) add(result.created, payout.amount);
      result.files.push(debits.file);
      if (debits.plans.length < limit) break;
    }
  }
  if (result.merchants + result.files.length + result.paid.count + result.failed.count > 0) {
    deps.log?.info(
      {
        accountId: input.accountId,
        merchants: result.merchants,
        created: result.created.count,
        paid: result.paid.count,
        failed: result.failed.count,
        files: result.files.length,
      },
      'payout run done',
    );
  }
  return result;
}

/** Counts a payout and the cents it moved, whichever way (a negative balance's debit moves them from the bank). */
const add = (total: { count: number; amount: number }, amount: number) => {
  total.count += 1;
  total.amount += Math.abs(amount);
};

/**
 * A due merchant's automatic payout. With `delayDays` d, only money available by the end of the business day d
 * business days before today is paid: what became available on business day X is paid on the d-th business day
 * after X (d = 0: the day it became available, after that day's settlement).
 */
function requestOf(schedule: DueSchedule, now: Date, today: CalendarDate): PayoutRequest {
  return {
    accountId: schedule.accountId,
    merchantId: schedule.merchantId,
    now,
    method: 'automatic',
    ...(schedule.delayDays > 0
      ? { availableBefore: endOfPacificDay(subtractBusinessDays(today, schedule.delayDays)) }
      : {}),
  };
}
