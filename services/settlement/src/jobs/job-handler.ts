import type { Processor } from '@pps/payments';
import type { Config } from '@pps/shared/config';
import type { FieldCipher } from '@pps/shared/crypto';
import type { Db } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import type { Metrics } from '@pps/shared/metrics';
import type { JobName, JobPayload } from '@pps/shared/queues';
import type { EndpointSlots } from '../webhooks/endpoint-slots';

/** What the jobs of one settlement process share: its deps with their defaults filled in. */
export type JobDeps = {
  config: Config;
  db: Db;
  processor: Processor;
  cipher: FieldCipher;
  metrics?: Metrics;
  /** Webhook deliveries in flight per endpoint in this process. */
  endpointSlots: EndpointSlots;
};

export type JobInput<N extends JobName> = {
  deps: JobDeps;
  /** Already checked against the job's zod schema in the catalogue. */
  payload: JobPayload<N>;
  attempt: number;
  log: Logger;
  /** Aborted when the process is stopping: long jobs end at their next safe point. */
  signal: AbortSignal;
};

/** A job's handler: a plain function, tested without BullMQ. */
export type JobHandler<N extends JobName> = (input: JobInput<N>) => Promise<void>;

/** One handler per job of the catalogue, each typed by its job's payload. */
export type JobHandlers = { readonly [N in JobName]: JobHandler<N> };

/**
 * Thrown by a handler that cannot run now (a resource busy or away): the job runs again after `delayMs` without
 * using up one of its attempts.
 */
export class RunLater extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'RunLater';
  }
}
