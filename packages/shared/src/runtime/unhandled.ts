import type { Logger } from '../logger';

/**
 * What a Redis client rejects with while Redis is away: ioredis's `MaxRetriesPerRequestError` (a command on a
 * connection that fails fast, `maxRetriesPerRequest` set) and its closed-connection errors. Redis is the platform's
 * queue, never its record: whatever a command was for waits in PostgreSQL and is done again once Redis answers.
 */
export function isRedisAway(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return /^(?:Connection is closed\.|Stream isn't writeable and enableOfflineQueue options is false)$/.test(
    error.message,
  );
}

/**
 * A promise rejected with no one to catch it. Node's default ends the process with the error on stderr; here it is
 * logged first, and one that says only that Redis is away (a command sent without an await, while Redis was
 * restarting) is logged and survived: a worker that died of it would stop first attempts that need no Redis at all
 * (docs/decisions.md, Unhandled rejections). Anything else still ends the process, as it would have.
 */
export function onUnhandledRejection(log: Logger, exit: (code: number) => void = process.exit): void {
  process.on('unhandledRejection', (reason) => {
    if (isRedisAway(reason)) {
      log.warn({ err: reason }, 'a Redis command failed with no one to answer (Redis away); going on');
      return;
    }
    log.fatal({ err: reason }, 'unhandled rejection; exiting');
    exit(1);
  });
}
