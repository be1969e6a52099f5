import type { Clock } from '@pps/shared/clock';
import type { Config } from '@pps/shared/config';
import type { Db } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import type { Queue } from 'bullmq';
import type Redis from 'ioredis';
import type { AuthCache } from './auth/auth-cache';
import type { Authenticated } from './auth/authenticate';
import type { Upstream } from './proxy/upstream';

export type GatewayDeps = {
  config: Config;
  db: Db;
  log: Logger;
  /** Real time: token issue and expiry. Tests inject a manual clock. */
  clock: Clock;
  auth: AuthCache;
  upstreams: { payments: Upstream; merchants: Upstream };
  /** Reported by /readyz, and where the rate limits count; the API works without it (limits off or failing open). */
  redis?: Redis;
  /** The BullMQ queues ops see at /admin/queues and in /metrics. */
  queues?: Queue[];
  /** Called after an account's sandbox clock moves (settlement runs a pass at once). */
  onClockAdvanced?: (accountId: string) => Promise<void>;
};

export type GatewayEnv = { Variables: { requestId: string; caller: Authenticated } };
