import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { dropDatabases, postgresUrl, prepareTemplateDatabase } from '../packages/shared/src/testing/databases';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    runId: string;
  }
}

/** Migrates a template database once per run; each test file clones it (CREATE DATABASE … TEMPLATE). */
export default async function setup(project: TestProject) {
  const runId = String(process.pid);
  const template = await prepareTemplateDatabase(runId);
  project.provide('templateDatabase', template);
  project.provide('runId', runId);
  return async () => {
    await dropDatabases(postgresUrl('postgres'), (name) => name.startsWith(`pps_t_${runId}_`) || name === template);
  };
}
