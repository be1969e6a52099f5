import { removeExpiredRequests, requestLogCutoff } from '@pps/gateway';
import type { JobHandler } from './job-handler';

const BATCH = 5000;

/**
 * Removes the request log's rows past its 30 days (real time), a batch per short statement, stopping at the next
 * batch when the process stops (the next run goes on). Running it twice is harmless.
 */
export const requestLogRetention: JobHandler<'requestLogRetention'> = async ({ deps, log, signal }) => {
  const before = requestLogCutoff(new Date());
  const { removed, batches } = await removeExpiredRequests(deps.db, { before, batchSize: BATCH, signal });
  if (removed > 0) log.info({ before, removed, batches }, 'requests past the request log retention removed');
};
