import type { Clock } from '../clock';
import type { Config } from '../config/config';
import type { DbOrTx } from '../db';
import type { Logger } from '../logger';
import type { CallerContext } from './internal-auth';

/** What a use case needs about its caller and its world, passed as one object. */
export type ServiceContext = CallerContext & {
  config: Config;
  db: DbOrTx;
  /** The account's sandbox clock (createdAt, void window, settleAt). */
  clock: Clock;
  log: Logger;
};

/**
 * The wall clock behind the account's sandbox clock, for what runs in real time whatever the sandbox says:
 * idempotency-key expiry, webhook timestamps and secret rotation.
 */
export const wallClockNow = (ctx: Pick<ServiceContext, 'clock' | 'clockOffsetSeconds'>) =>
  new Date(ctx.clock.now().getTime() - ctx.clockOffsetSeconds * 1000);
