import type { Db } from '@pps/shared/db';
import { idTimeBound } from '@pps/shared/ids';
import { deleteRequestsBefore } from '../model/request-log.repository';

/** How long a request stays in the log (real time): Stripe's Workbench keeps a month. */
export const REQUEST_LOG_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;

/** The instant before which a request has left the log, at `now`. */
export const requestLogCutoff = (now: Date) => new Date(now.getTime() - REQUEST_LOG_RETENTION_DAYS * DAY_MS);

/**
 * Removes the requests created before `before`, `batchSize` at a time, each batch its own short statement, until one
 * comes short or `signal` aborts (the batch under way finishes; the next run goes on). Each batch starts after the
 * last id the previous one removed, so nothing is read twice.
 */
export async function removeExpiredRequests(
  db: Db,
  input: { before: Date; batchSize: number; signal?: AbortSignal },
): Promise<{ removed: number; batches: number }> {
  // A request's id is made as it begins, at its `created_at` or a moment before: every expired row's id is below.
  const idBound = idTimeBound('request', input.before);
  let after = '';
  let removed = 0;
  let batches = 0;
  while (!input.signal?.aborted) {
    const ids = await deleteRequestsBefore(db, { before: input.before, idBound, after, batchSize: input.batchSize });
    batches++;
    removed += ids.length;
    if (ids.length < input.batchSize) break;
    after = ids.reduce((last, id) => (id > last ? id : last), after);
  }
  return { removed, batches };
}
