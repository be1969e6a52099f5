import { parseArgs } from 'node:util';
import { createAccount, setAccountStatus } from '@pps/gateway';
import { changeMerchantStatus, updateMerchantFeatures } from '@pps/merchants';
import { listPayouts } from '@pps/payments';
import { systemClock } from '@pps/shared/clock';
import { loadConfig } from '@pps/shared/config';
import { createDatabase, runMigrations } from '@pps/shared/db';
import { OPERATOR_ACCOUNT_ID, type ServiceContext } from '@pps/shared/http';
import { newId } from '@pps/shared/ids';
import { verifyKeptFigures } from '@pps/shared/ledger';
import { createLogger } from '@pps/shared/logger';
import { formatCents } from '@pps/shared/money';
import { isMerchantStatus } from '@pps/shared/states';
import { type CliCommand, cliUsage, isCliCommand } from './cli-commands';

/**
 * Ops CLI: the same use cases as the admin API, run against DATABASE_URL. The commands, their arguments and what
 * they do are in scripts/cli-commands.ts (`npm run cli` alone prints them; docs/api.md lists them).
 *   npm run cli -- accounts:create --name "Acme"
 *   npm run cli -- merchants:status --id mer_… --status suspended --reason "chargebacks"
 */
const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    name: { type: 'string' },
    id: { type: 'string' },
    status: { type: 'string' },
    reason: { type: 'string' },
    'second-split': { type: 'string' },
    limit: { type: 'string' },
    offset: { type: 'string' },
  },
  strict: true,
});

/** One handler a command of the table: a command without one does not compile. */
const handlers: Record<CliCommand, () => Promise<void>> = {
  'accounts:create': async () => {
    if (!values.name) throw new Error('--name is required');
    const created = await createAccount({ ctx: accountsContext(), input: { name: values.name } });
    console.log(
      JSON.stringify({ accountId: created.account.id, apiKey: created.apiKey, appId: created.appId }, null, 2),
    );
  },
  'accounts:status': async () => {
    if (!values.id || (values.status !== 'active' && values.status !== 'disabled')) {
      throw new Error('--id and --status active|disabled are required');
    }
    const account = await setAccountStatus({ ctx: accountsContext(), input: { id: values.id, status: values.status } });
    console.log(JSON.stringify({ accountId: account.id, status: account.status }, null, 2));
  },
  'merchants:status': async () => {
    if (!values.id || !values.status || !isMerchantStatus(values.status)) {
      throw new Error('--id and --status active|pending|suspended|closed are required');
    }
    const merchant = await changeMerchantStatus({
      ctx: operatorContext(),
      input: { merchantId: values.id, status: values.status, reason: values.reason },
    });
    console.log(JSON.stringify({ merchantId: merchant.id, status: merchant.attributes.status }, null, 2));
  },
  'merchants:features': async () => {
    const flag = values['second-split'];
    if (!values.id || (flag !== 'true' && flag !== 'false')) {
      throw new Error('--id and --second-split true|false are required');
    }
    const merchant = await updateMerchantFeatures({
      ctx: operatorContext(),
      input: { merchantId: values.id, features: { secondSplit: flag === 'true' } },
    });
    console.log(JSON.stringify({ merchantId: merchant.id, features: merchant.attributes.features }, null, 2));
  },
  'payouts:list': async () => {
    const limit = Number(values.limit ?? 25);
    const offset = Number(values.offset ?? 0);
    if (!values.id || !Number.isInteger(limit) || limit < 1 || limit > 100 || !Number.isInteger(offset) || offset < 0) {
      throw new Error('--id is required; --limit is 1 to 100, --offset 0 or more');
    }
    const { rows, page } = await listPayouts({
      ctx: operatorContext(),
      input: { merchantId: values.id, limit, offset },
    });
    const payouts = rows.map((payout) => ({
      id: payout.id,
      status: payout.status,
      amount: formatCents(payout.amount),
      arrivalDate: payout.arrivalDate,
      traceNumber: payout.traceNumber,
    }));
    console.log(JSON.stringify({ merchantId: values.id, total: page.total, payouts }, null, 2));
  },
  'ledger:verify': async () => {
    const report = await verifyKeptFigures(database.db);
    console.log(JSON.stringify(report, null, 2));
    if (report.differences.length > 0) process.exitCode = 1;
  },
};

if (!isCliCommand(command)) {
  console.error(cliUsage());
  process.exit(2);
}
const config = loadConfig();
// Every command but the read-only check migrates first, as the services do.
if (command !== 'ledger:verify') await runMigrations(config.DATABASE_URL);
const database = createDatabase(config.DATABASE_URL, { max: 1 });
try {
  await handlers[command]();
} catch (error) {
  const detail = (error as { detail?: string }).detail ?? (error as Error).message;
  console.error(`error: ${detail}`);
  process.exitCode = 1;
} finally {
  await database.close();
}

/** The gateway's account use cases, as the admin API runs them (warnings only: the CLI prints its own output). */
function accountsContext() {
  return { db: database.db, clock: systemClock, log: createLogger({ level: 'warn', name: 'cli' }) };
}

/** The CLI acts as ops, like `/admin/*` with ADMIN_TOKEN. */
function operatorContext(): ServiceContext {
  return {
    accountId: OPERATOR_ACCOUNT_ID,
    appId: 'cli',
    clockOffsetSeconds: 0,
    requestId: newId('request'),
    config,
    db: database.db,
    clock: systemClock,
    log: createLogger({ level: 'warn', name: 'cli' }),
  };
}
