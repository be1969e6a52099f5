import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { dropDatabases, postgresUrl, prepareTemplateDatabase } from '../packages/shared/src/testing/databases';
import { removeQueueKeys, testRedisUrl } from '../packages/shared/src/testing/queue-keys';
import { isAlive } from '../packages/shared/src/testing/runs';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    runId: string;
  }
}

/**
 * One template per run, whichever projects use it: vitest runs this file once per project that lists it (`api` and
 * `slow`), each in a module instance of its own, so the template and the count of projects using it live on
 * globalThis (the main vitest process). The last project's teardown drops the template and its clones, and deletes
 * the Redis keys under the run's queue prefixes (`queuePrefix`); the first setup deletes those of runs whose process
 * is gone, as `prepareTemplateDatabase` drops their databases.
 */
type Shared = { template: Promise<string>; users: number };
const key = Symbol.for('pps.test.templateDatabase');
const store = globalThis as typeof globalThis & { [key]?: Shared };

/** Migrates a template database once per run; each test file clones it (CREATE DATABASE … TEMPLATE). */
export default async function setup(project: TestProject) {
  const runId = String(process.pid);
  store[key] ??= {
    template: removeLeftKeys((run) => !isAlive(Number(run))).then(() => prepareTemplateDatabase(runId)),
    users: 0,
  };
  const shared = store[key];
  shared.users++;
  const template = await shared.template;
  project.provide('templateDatabase', template);
  project.provide('runId', runId);
  return async () => {
    if (--shared.users > 0) return;
    delete store[key];
    await dropDatabases(postgresUrl('postgres'), (name) => name.startsWith(`pps_t_${runId}_`) || name === template);
    await removeLeftKeys((run) => run === runId);
  };
}

/** Keys left in Redis by the runs `match` picks; a Redis that is away leaves them for a later run, with a word. */
const removeLeftKeys = (match: (run: string) => boolean) =>
  removeQueueKeys(testRedisUrl(), match).catch((error: unknown) => {
    console.warn(`test keys left in Redis: ${(error as Error).message}`);
  });
