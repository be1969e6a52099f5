import { parseArgs } from 'node:util';
import { loadConfig } from '@pps/shared/config';
import { createDatabase, runMigrations } from '@pps/shared/db';
import { createAccount, setAccountStatus } from '../services/gateway/src/admin/accounts.usecases';

/**
 * Ops CLI: the same use cases as the admin API, run against DATABASE_URL.
 *   npm run cli -- accounts:create --name "Acme"
 *   npm run cli -- accounts:status --id acct_… --status disabled
 */
const USAGE = `usage:
  npm run cli -- accounts:create --name NAME
  npm run cli -- accounts:status --id ACCOUNT_ID --status active|disabled`;

const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: { name: { type: 'string' }, id: { type: 'string' }, status: { type: 'string' } },
  strict: true,
});

const config = loadConfig();
await runMigrations(config.DATABASE_URL);
const database = createDatabase(config.DATABASE_URL, { max: 1 });
try {
  switch (command) {
    case 'accounts:create': {
      if (!values.name) throw new Error('--name is required');
      const created = await createAccount(database.db, { name: values.name });
      console.log(JSON.stringify({ accountId: created.account.id, apiKey: created.apiKey, appId: created.appId }, null, 2));
      break;
    }
    case 'accounts:status': {
      if (!values.id || (values.status !== 'active' && values.status !== 'disabled')) {
        throw new Error('--id and --status active|disabled are required');
      }
      const account = await setAccountStatus(database.db, values.id, values.status);
      console.log(JSON.stringify({ accountId: account.id, status: account.status }, null, 2));
      break;
    }
    default:
      console.error(USAGE);
      process.exitCode = 2;
  }
} catch (error) {
  console.error(`error: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await database.close();
}
