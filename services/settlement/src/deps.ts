import type { Processor } from '@pps/payments';
import type { Config } from '@pps/shared/config';
import type { FieldCipher } from '@pps/shared/crypto';
import type { Db } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import type { Metrics } from '@pps/shared/metrics';

/** What the settlement workers are started with (`startSettlement`). */
export type SettlementDeps = {
  config: Config;
  db: Db;
  log: Logger;
  /** The ACH operator's answers at settlement (returns); the sandbox by default. */
  processor?: Processor;
  cipher?: FieldCipher;
  metrics?: Metrics;
};
