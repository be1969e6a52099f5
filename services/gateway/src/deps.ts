import type { Clock } from '@pps/shared/clock';
import type { Config } from '@pps/shared/config';
import type { ServiceName } from '@pps/shared/contract';
import type { Db } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import type { RedisClient } from '@pps/shared/queues';
import type { Queue } from 'bullmq';
import type { AccountSnapshot, AuthCache } from './auth/auth-cache';
import type { Upstream } from './proxy/upstream';
import type { RequestLog } from './request-log/run/writer';

export type GatewayDeps = {
  config: Config;
  db: Db;
  log: Logger;
  /** Real time: token issue and expiry. Tests inject a manual clock. */
  clock: Clock;
  auth: AuthCache;
  /** The services the gateway forwards to, by name (`serviceRoutes` says which routes each answers). */
  upstreams: Record<ServiceName, Upstream>;
  /** Reported by /readyz, and where the rate limits count; the API works without it (limits off or failing open). */
  redis?: RedisClient;
  /** The BullMQ queues ops see at /admin/queues and in /metrics. */
  queues?: Queue[];
  /** Called after an account's sandbox clock moves (settlement runs a pass at once). */
  onClockAdvanced?: (accountId: string) => Promise<void>;
  /** Where the account's requests are recorded (`startRequestLog`); none, or disabled: nothing is recorded. */
  requestLog?: RequestLog;
};

/**
 * What a gateway use case is given as its `ctx` (`{ ctx, input }`, the services' ServiceContext has the same role):
 * the database, the real-time clock (token expiry, timestamps: an account's sandbox clock is data the gateway reads
 * and moves, never the clock it runs on), the config and the logger. A use case names the parts it reads
 * (`Pick<GatewayContext, 'db' | 'clock' | 'log'>`), so the ops CLI, `npm start` and the benches call it with no
 * more than that. The auth cache is not part of it: it is this process's memo of what authentication reads, and the
 * routes forget an account in it once a use case has changed that.
 */
export type GatewayContext = Pick<GatewayDeps, 'config' | 'db' | 'clock' | 'log'>;

/** The context of a use case acting for the account that authenticated (its API key, or an app token). */
export type AccountContext = GatewayContext & { account: AccountSnapshot };

export const gatewayContext = ({ config, db, clock, log }: GatewayDeps): GatewayContext => ({ config, db, clock, log });

export type { GatewayEnv } from './auth/authenticate';
