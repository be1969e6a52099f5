import type { Config } from '@pps/shared/config';
import type { Db } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import type { Metrics } from '@pps/shared/metrics';

/** What the event pipeline is started with (`startWebhooks`). */
export type WebhooksDeps = {
  config: Config;
  db: Db;
  log: Logger;
  metrics?: Metrics;
};
