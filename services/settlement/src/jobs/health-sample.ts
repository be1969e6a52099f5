import { takeHealthSample } from '@pps/gateway';
import type { JobHandler } from './job-handler';

/**
 * Keeps a minute's figures of the roles' lag for the console's health charts and removes those past two hours (the
 * gateway owns the samples and has no workers; settlement's maintenance worker runs this as it runs the request
 * log's retention). Running it twice is harmless.
 */
export const healthSample: JobHandler<'healthSample'> = async ({ deps, log }) => {
  const { queues, removed } = await takeHealthSample({ db: deps.db, queues: deps.queues, now: new Date() });
  if (queues < deps.queues.length) log.warn({ read: queues, of: deps.queues.length }, 'health sample without Redis');
  if (removed > 0) log.debug({ removed }, 'health samples past two hours removed');
};
