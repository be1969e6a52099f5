import { loadConfig } from '@pps/shared/config';
import { databaseNameOf, runMigrations } from '@pps/shared/db';

/** `npm run db:migrate`: applies committed migrations to DATABASE_URL (every process also does this at start). */
const config = loadConfig();
await runMigrations(config.DATABASE_URL);
console.log(`migrations applied to ${databaseNameOf(config.DATABASE_URL)}`);
