import { type Config, loadConfig } from '../config';
import { createDatabase, type Database, runMigrations } from '../db';
import { createLogger, type Logger } from '../logger';

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
  for (const warning of config.warnings) log.warn(warning);
  await runMigrations(config.DATABASE_URL);
  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_SIZE,
    readMax: config.DATABASE_READ_POOL_SIZE,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  });
  return { config, log, database };
}
