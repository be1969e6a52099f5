import type { Logger } from '@pps/shared/logger';
import type { SettlementDeps } from '../workers';
import { idempotencyCleanup } from './idempotency-cleanup';

export type JobHandler = (input: {
  deps: SettlementDeps;
  payload: unknown;
  attempt: number;
  log: Logger;
}) => Promise<void>;

/** One handler per job name of the catalogue. */
export const handlers: Record<string, JobHandler> = {
  'idempotency-cleanup': idempotencyCleanup,
};
