import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { dropDatabases, postgresUrl, prepareTemplateDatabase } from '../packages/shared/src/testing/databases';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    runId: string;
  }
}

/**
 * One template per run, whichever projects use it: vitest runs this file once per project that lists it (`api` and
 * `slow`), each in a module instance of its own, so the template and the count of projects using it live on
 * globalThis (the main vitest process). The last project's teardown drops the template and its clones.
 */
type Shared = { template: Promise<string>; users: number };
const key = Symbol.for('pps.test.templateDatabase');
const store = globalThis as typeof globalThis & { [key]?: Shared };

/** Migrates a template database once per run; each test file clones it (CREATE DATABASE … TEMPLATE). */
export default async function setup(project: TestProject) {
  const runId = String(process.pid);
  store[key] ??= { template: prepareTemplateDatabase(runId), users: 0 };
  const shared = store[key];
  shared.users++;
  const template = await shared.template;
  project.provide('templateDatabase', template);
  project.provide('runId', runId);
  return async () => {
    if (--shared.users > 0) return;
    delete store[key];
    await dropDatabases(postgresUrl('postgres'), (name) => name.startsWith(`pps_t_${runId}_`) || name === template);
  };
}
