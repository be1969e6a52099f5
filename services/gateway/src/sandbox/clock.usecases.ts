import { withTransaction } from '@pps/shared/db';
import { unprocessable } from '@pps/shared/http';
import type { AccountContext } from '../deps';
import { lockClockOffset, readClockOffset, setClockOffset } from './clock.repository';

/** How far ahead a sandbox clock may run: every date computed from it stays a valid, sensible date. */
const MAX_OFFSET_YEARS = 10;
const MAX_OFFSET_SECONDS = MAX_OFFSET_YEARS * 366 * 86_400;

/** The account's sandbox clock as an offset from real time, with the real time it was read at. */
export type SandboxClock = { offsetSeconds: number; realNow: Date };

/** GET /sandbox/clock. */
export async function getSandboxClock({
  ctx,
}: {
  ctx: Pick<AccountContext, 'db' | 'clock' | 'account'>;
}): Promise<SandboxClock> {
  const offsetSeconds = await readClockOffset(ctx.db, ctx.account.id);
  return { offsetSeconds, realNow: ctx.clock.now() };
}

/**
 * POST /sandbox/clock: moves the account's clock forward by `advanceSeconds`, or to `time`; never backwards, and at
 * most MAX_OFFSET_YEARS ahead of real time (422 pointing at the field given).
 */
export async function advanceSandboxClock({
  ctx,
  input,
}: {
  ctx: Pick<AccountContext, 'db' | 'clock' | 'log' | 'account'>;
  input: { advanceSeconds?: number; time?: string };
}): Promise<SandboxClock> {
  const { advanceSeconds, time } = input;
  const accountId = ctx.account.id;
  const realNow = ctx.clock.now();
  const offsetSeconds = await withTransaction(ctx.db, async (tx) => {
    const current = await lockClockOffset(tx, accountId);
    const target =
      advanceSeconds !== undefined
        ? current + advanceSeconds
        : Math.floor((new Date(time!).getTime() - realNow.getTime()) / 1000);
    const pointer = advanceSeconds !== undefined ? '/data/attributes/advanceSeconds' : '/data/attributes/time';
    if (target < current) throw unprocessable('clock_backwards', 'The sandbox clock only moves forward', pointer);
    if (!Number.isSafeInteger(target) || target > MAX_OFFSET_SECONDS) {
      throw unprocessable(
        'clock_out_of_range',
        `The sandbox clock goes at most ${MAX_OFFSET_YEARS} years ahead of real time`,
        pointer,
      );
    }
    await setClockOffset(tx, accountId, target, realNow);
    return target;
  });
  ctx.log.info({ accountId, offsetSeconds }, 'sandbox clock moved');
  return { offsetSeconds, realNow };
}
