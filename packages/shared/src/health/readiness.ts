import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type postgres from 'postgres';
import { MIGRATIONS_FOLDER, migrationsApplied } from '../db/migrate';
import type { RedisClient } from '../queues/redis';

/**
 * The longest one check waits. The checks run at once, so `/readyz` answers within about this (under the one second a
 * probe such as Compose's may give it) whatever is down, slow or silent.
 */
export const CHECK_TIMEOUT_MS = 800;

/** One check: `ok`, or in a word or two what is wrong (`unreachable`, `migrations pending`). */
export type Check = () => Promise<string>;

export type ReadinessChecks = {
  /** The process is not ready unless each of these says `ok`. */
  required: Record<string, Check>;
  /** Shown beside them; never what makes the process not ready. */
  reported?: Record<string, Check>;
};

/** What `/readyz` answers: the checks' names and states, nothing more (it needs no credentials). */
export type Readiness = { status: 'ready' | 'not ready'; checks: Record<string, string> };

/** Runs every check at once; one that throws, or has not answered within CHECK_TIMEOUT_MS, says `unreachable`. */
export async function checkReadiness(checks: ReadinessChecks): Promise<Readiness> {
  const run = async (entries: Record<string, Check>) =>
    Object.fromEntries(
      await Promise.all(
        Object.entries(entries).map(async ([name, check]) => [name, await within(check, CHECK_TIMEOUT_MS)] as const),
      ),
    );
  const [required, reported] = await Promise.all([run(checks.required), run(checks.reported ?? {})]);
  const ready = Object.values(required).every((state) => state === 'ok');
  return { status: ready ? 'ready' : 'not ready', checks: { ...required, ...reported } };
}

/** `GET /readyz`'s answer: 200 when ready, else 503, the body as `checkReadiness` made it. */
export const readinessResponse = (readiness: Readiness): Response =>
  Response.json(readiness, { status: readiness.status === 'ready' ? 200 : 503 });

/** `checkReadiness` and its answer, for a route that adds nothing of its own. */
export const readyz = async (checks: ReadinessChecks): Promise<Response> =>
  readinessResponse(await checkReadiness(checks));

function within(check: Check, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('unreachable'), ms);
  });
  const answer = Promise.resolve()
    .then(check)
    .catch(() => 'unreachable');
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/** The database answers, and every committed migration has been applied to it. */
export function databaseCheck(sql: postgres.Sql): Check {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'));
  const committed = (journal as { entries: unknown[] }).entries.length;
  return async () => ((await migrationsApplied(sql, committed)) ? 'ok' : 'migrations pending');
}

/**
 * Redis answers PING. A client that is not connected is `unreachable` at once, with nothing sent: a BullMQ connection
 * (`maxRetriesPerRequest: null`) would hold the command until Redis came back, one more at every probe.
 */
export const redisCheck =
  (redis: RedisClient): Check =>
  async () => {
    if (redis.status !== 'ready') return 'unreachable';
    await redis.ping();
    return 'ok';
  };

/** For a process given no Redis client (the gateway in some tests and tools). */
export const notConfigured: Check = async () => 'not configured';
