import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { runMigrations } from '../db/migrate';
import { isAlive } from './runs';

/** Base URL of the test PostgreSQL (TEST_DATABASE_URL's server, default the local one). */
export function postgresUrl(database: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${database}`;
  return url.toString();
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function dropDatabases(adminUrl: string, match: (name: string) => boolean): Promise<void> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ datname: string }[]>`select datname from pg_database where datname like 'pps\\_%'`;
    for (const { datname } of rows.filter((row) => match(row.datname))) {
      await sql.unsafe(`drop database if exists ${quote(datname)} with (force)`);
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Migrates `pps_tpl_<runId>`, first dropping databases left behind by test runs whose process is gone. */
export async function prepareTemplateDatabase(runId: string): Promise<string> {
  await dropDatabases(postgresUrl('postgres'), (name) => {
    const match = /^pps_(?:tpl|t)_(\d+)(?:_|$)/.exec(name);
    return match !== null && !isAlive(Number(match[1]));
  });
  const template = `pps_tpl_${runId}`;
  await dropDatabases(postgresUrl('postgres'), (name) => name === template);
  await runMigrations(postgresUrl(template));
  return template;
}

/** A fresh database for one test file, cloned from the migrated template. */
export async function createDatabaseFromTemplate(
  template: string,
  runId: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `pps_t_${runId}_${randomBytes(4).toString('hex')}`;
  const sql = postgres(postgresUrl('postgres'), { max: 1, onnotice: () => {} });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await sql.unsafe(`create database ${quote(name)} template ${quote(template)}`);
        break;
      } catch (error) {
        // Two clones starting at once can collide on the template ("being accessed by other users").
        if ((error as { code?: string }).code !== '55006' || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
      }
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
  return {
    url: postgresUrl(name),
    drop: () => dropDatabases(postgresUrl('postgres'), (candidate) => candidate === name),
  };
}
