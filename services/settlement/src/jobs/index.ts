import type { Logger } from '@pps/shared/logger';
import { jobs } from '@pps/shared/queues';
import type { SettlementDeps } from '../workers';
import { idempotencyCleanup } from './idempotency-cleanup';
import { settlementPass } from './settlement-pass';

export type JobHandler = (input: {
  deps: SettlementDeps;
  /** Already checked against the job's zod schema in the catalogue. */
  payload: unknown;
  attempt: number;
  log: Logger;
  /** Aborted when the process is stopping: long jobs end at their next safe point. */
  signal?: AbortSignal;
}) => Promise<void>;

/** One handler per job name of the catalogue. */
export const handlers: Record<string, JobHandler> = {
  [jobs.idempotencyCleanup.name]: idempotencyCleanup,
  [jobs.settlementPass.name]: settlementPass,
};
