import type { AchFileDeps } from '@pps/shared/ach';
import { type CalendarDate, isBusinessDay, subtractBusinessDays } from '@pps/shared/clock';
import { type DbOrTx, schema, textArray } from '@pps/shared/db';
import { type SQL, sql } from 'drizzle-orm';
import { type PayoutPlan, planPayouts, writePayouts } from './create-payouts';
import type { PayoutScope } from './due-schedules';
import { type FiledPayouts, fileTransfers } from './file-payouts';

const { negativeBalances } = schema;

/** The scope's condition on an account id column, written out: every account on real time, or one account. */
const scopeSql = (scope: PayoutScope, accountId: SQL) =>
  scope.accountId
    ? sql`${accountId} = ${scope.accountId}`
    : sql`${accountId} in (select id from accounts where clock_offset_seconds = 0)`;

/**
 * Notes which merchants of the scope have an available balance below zero (docs/design.md, Negative balances), in
 * the caller's transaction: a merchant newly negative gets a row `since` today, one back at zero or above loses its
 * row. Read from the kept balances of the scope's merchants, so its cost grows with their number, not their history.
 * The scope of every account takes the accounts on real time only: one whose sandbox clock is ahead is noted by its
 * own scope, so `since` is always a date of the account's own clock.
 */
export async function noteNegativeBalances(
  tx: DbOrTx,
  input: { scope: PayoutScope; today: CalendarDate; now: Date },
): Promise<void> {
  // Written out: a set-based upsert and delete from a grouped join of merchants with their kept balances.
  await tx.execute(sql`
    with negative as (
      select m.id as merchant_id, m.account_id from merchants m
      join ledger_balances b on b.ledger_account = 'merchant:' || m.id || ':available'
      where ${scopeSql(input.scope, sql`m.account_id`)}
      group by m.id, m.account_id having sum(b.balance) < 0
    ),
    noted as (
      insert into ${negativeBalances} (merchant_id, account_id, since, created_at)
      select merchant_id, account_id, ${input.today}, ${input.now.toISOString()}::timestamptz from negative
      on conflict (merchant_id) do nothing
    )
    delete from ${negativeBalances} nb
    where ${scopeSql(input.scope, sql`nb.account_id`)} and nb.merchant_id not in (select merchant_id from negative)`);
}

/**
 * Debits up to `limit` merchants of the scope whose available balance has been negative `debitDays` business days
 * (on a business day): a payout of that negative balance (`negative_balance_debit`), filed at once as an ACH debit of
 * the merchant's bank account, written as payouts are (the balance is zero once it is made; its money comes in on
 * its arrival date, or the bank returns it and the balance is negative again). Each merchant's payout schedule row is
 * held (`SKIP LOCKED`) as for every payout; a debited merchant's note goes. A merchant with no bank account keeps its
 * note and is tried again by each run. Null when no one was debited.
 */
export async function debitNegativeBalances(
  tx: DbOrTx,
  deps: AchFileDeps,
  input: { scope: PayoutScope; today: CalendarDate; now: Date; limit: number },
): Promise<{ plans: PayoutPlan[]; file: FiledPayouts } | null> {
  if (!isBusinessDay(input.today)) return null;
  const dueSince = subtractBusinessDays(input.today, deps.config.NEGATIVE_BALANCE_DEBIT_DAYS);
  // Written out: the notes due, with their merchants' schedule rows locked, which the builder would lock apart.
  const due = await tx.execute<{ merchant_id: string; account_id: string }>(sql`
    select nb.merchant_id, nb.account_id from ${negativeBalances} nb
    join payout_schedules s on s.merchant_id = nb.merchant_id
    where ${scopeSql(input.scope, sql`nb.account_id`)} and nb.since <= ${dueSince}
    order by nb.merchant_id
    limit ${input.limit}
    for update of s skip locked`);
  if (due.length === 0) return null;
  const requests = due.map((row) => ({
    accountId: row.account_id,
    merchantId: row.merchant_id,
    now: input.now,
    method: 'negative_balance_debit' as const,
  }));
  const { plans } = await planPayouts(tx, requests, { minimum: deps.config.PAYOUT_MINIMUM });
  if (plans.length === 0) return null;
  const debited = textArray(plans.map(({ payout }) => payout.merchantId));
  await tx.execute(sql`delete from ${negativeBalances} where merchant_id = any(${debited})`);
  const filed = await fileTransfers(tx, deps, plans, input.now);
  for (const { payout } of plans) {
    payout.achFileId = filed.file.fileId;
    payout.traceNumber = filed.traceNumbers.get(payout.id)!;
  }
  await writePayouts(tx, plans);
  return { plans, file: filed.file };
}
