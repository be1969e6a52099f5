import { type Config, loadConfig } from '../config';
import { createDatabase, type Database, runMigrations } from '../db';
import { createLogger, type Logger } from '../logger';
import { onUnhandledRejection } from './unhandled';

/** What every process starts with: config parsed once, a logger, a migrated database. */
export async function bootstrap(name: string): Promise<{ config: Config; log: Logger; database: Database }> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  const log = createLogger({ level: config.LOG_LEVEL, name });
  onUnhandledRejection(log);
  for (const note of config.warnings) log.info(note);
  await runMigrations(config.DATABASE_URL);
  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_SIZE,
    readMax: config.DATABASE_READ_POOL_SIZE,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.REQUEST_DEADLINE_MS,
  });
  await warnWithoutAutovacuum(database, log);
  return { config, log, database };
}

/**
 * Says so when PostgreSQL's autovacuum is off. Every statement is prepared, and a prepared statement keeps the
 * generic plan it chose while the tables were small until an ANALYZE (or DDL) makes it plan again: without
 * autovacuum the payment path went on scanning whole tables as they grew (docs/decisions.md, A merchant's history
 * never slows the API).
 */
async function warnWithoutAutovacuum(database: Database, log: Logger): Promise<void> {
  const [row] = await database.sql<{ autovacuum: string }[]>`select current_setting('autovacuum') as autovacuum`;
  if (row?.autovacuum === 'off') {
    log.warn(
      'PostgreSQL autovacuum is off: prepared statements keep the plans they made on small tables, and calls slow ' +
        'as the tables grow; turn it on, or run ANALYZE as the tables grow',
    );
  }
}
