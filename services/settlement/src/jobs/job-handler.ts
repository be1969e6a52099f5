import type { Processor } from '@pps/payments';
import type { Config } from '@pps/shared/config';
import type { FieldCipher } from '@pps/shared/crypto';
import type { Db } from '@pps/shared/db';
import type { Metrics } from '@pps/shared/metrics';
import type * as Jobs from '@pps/shared/queues';
import type { Queue } from 'bullmq';

/** What the jobs of one settlement process share: its deps with their defaults filled in. */
export type JobDeps = {
  config: Config;
  db: Db;
  processor: Processor;
  cipher: FieldCipher;
  metrics?: Metrics;
  /** Every queue of the catalogue (the webhooks one read only): what the health samples count. */
  queues: Queue[];
};

/** The queues the settlement service's workers run. */
export type SettlementQueue = 'maintenance' | 'settlement';
type SettlementJob = Jobs.JobOf<SettlementQueue>;

export type JobInput<N extends SettlementJob> = Jobs.JobInput<JobDeps, N>;
export type JobHandler<N extends SettlementJob> = Jobs.JobHandler<JobDeps, N>;
export type JobHandlers = Jobs.JobHandlers<JobDeps, SettlementQueue>;
