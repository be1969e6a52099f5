import {
  addCalendarDays,
  type CalendarDate,
  calendarDateParts,
  dayOfWeek,
  isBusinessDay,
  nextBusinessDayOnOrAfter,
} from '@pps/shared/clock';
import type { DbOrTx } from '@pps/shared/db';
import { schema } from '@pps/shared/db';

import { and, asc, eq, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

const { accounts, merchants, payoutSchedules, weekdays } = schema;
type Weekday = schema.Weekday;

/**
 * Which accounts a payout run works on: one account by its own clock, or (no `accountId`) every account whose
 * sandbox clock is real time; each account ahead is a scope of its own (`accountsAhead`), so every payout is made,
 * filed and advanced by its account's "today".
 */
export type PayoutScope = { accountId?: string };

/** The condition "this row's account is in the scope", on the row's `account_id` column. */
export function inScope(accountIdColumn: PgColumn, scope: PayoutScope): SQL {
  if (scope.accountId) return eq(accountIdColumn, scope.accountId);
  const realTime = sql`(select ${accounts.id} from ${accounts} where ${accounts.clockOffsetSeconds} = 0)`;
  return sql`${accountIdColumn} in ${realTime}`;
}

/**
 * The weekly and monthly anchors due on `today`, or null when it is no business day (nobody is due). An anchor is
 * due on the first business day on or after its date in its week (Monday to Sunday) or month (an anchor beyond
 * the month's length is its last day); that day may fall in the next week or month (a holiday Friday pays on
 * Monday), so the previous week's and month's dates count too.
 */
export function dueAnchors(today: CalendarDate): { weekly: Weekday[]; monthly: number[] } | null {
  if (!isBusinessDay(today)) return null;
  const monday = addCalendarDays(today, -((dayOfWeek(today) + 6) % 7));
  const weekly = weekdays.filter((_, index) =>
    [0, -7].some((week) => nextBusinessDayOnOrAfter(addCalendarDays(monday, week + index)) === today),
  );
  const { year, month } = calendarDateParts(today);
  const months = [{ year, month }, month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 }];
  const monthly: number[] = [];
  for (let anchor = 1; anchor <= 31; anchor++) {
    const due = months.some(
      (candidate) => nextBusinessDayOnOrAfter(anchorDate(candidate.year, candidate.month, anchor)) === today,
    );
    if (due) monthly.push(anchor);
  }
  return { weekly, monthly };
}

/** The anchor's date in the month, its last day when the month is shorter. */
function anchorDate(year: number, month: number, anchor: number): CalendarDate {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(Math.min(anchor, last)).padStart(2, '0')}`;
}

export type DueSchedule = { merchantId: string; accountId: string; delayDays: number };

/**
 * Claims up to `limit` payout schedules due on `today` (a Pacific date) and marks them run that day, in the
 * caller's transaction: active merchants of the scope, not manual, whose interval is due today and who were not
 * considered today yet (`last_run_on`). `FOR UPDATE SKIP LOCKED`: a schedule another run (or a manual payout)
 * holds is left to it, so no two runs pay a merchant at once, and once this transaction commits `last_run_on`
 * keeps every later run of the day off it. Every claimed row is marked, paid or not: a balance too small is
 * carried forward to the merchant's next due day.
 */
export async function claimDueSchedules(
  tx: DbOrTx,
  input: { today: CalendarDate; scope: PayoutScope; limit: number },
): Promise<DueSchedule[]> {
  const anchors = dueAnchors(input.today);
  if (!anchors) return [];
  const { interval, weeklyAnchor, monthlyAnchor, lastRunOn } = payoutSchedules;
  const due = tx
    .select({ merchantId: payoutSchedules.merchantId })
    .from(payoutSchedules)
    .innerJoin(merchants, eq(merchants.id, payoutSchedules.merchantId))
    .where(
      and(
        inScope(payoutSchedules.accountId, input.scope),
        eq(merchants.status, 'active'),
        or(isNull(lastRunOn), lt(lastRunOn, input.today)),
        or(
          eq(interval, 'daily'),
          and(eq(interval, 'weekly'), inArray(weeklyAnchor, anchors.weekly)),
          and(eq(interval, 'monthly'), inArray(monthlyAnchor, anchors.monthly)),
        ),
      ),
    )
    .orderBy(asc(payoutSchedules.merchantId))
    .limit(input.limit)
    .for('update', { of: payoutSchedules, skipLocked: true });
  // Claimed and marked in one statement: the rows the subquery locks are the rows marked.
  return tx
    .update(payoutSchedules)
    .set({ lastRunOn: input.today })
    .where(inArray(payoutSchedules.merchantId, due))
    .returning({
      merchantId: payoutSchedules.merchantId,
      accountId: payoutSchedules.accountId,
      delayDays: payoutSchedules.delayDays,
    });
}
