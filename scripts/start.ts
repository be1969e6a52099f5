import {
  type AccountKey,
  AuthCache,
  createAccount,
  DEMO_SHOP_ACCOUNT,
  type DemoShop,
  type DemoShopAccount,
  demoShopAccount,
  inProcessUpstream,
  startDemoShop,
  startRequestLog,
} from '@pps/gateway';
import { createGatewayApp } from '@pps/gateway/app';
import { createMerchantsApp } from '@pps/merchants/app';
import { createPaymentsApp } from '@pps/payments/app';
import { startSettlement } from '@pps/settlement';
import { systemClock } from '@pps/shared/clock';
import { DEV_DEFAULTS } from '@pps/shared/config';
import { schema } from '@pps/shared/db';
import { createMetrics, joinClusterMetrics } from '@pps/shared/metrics';
import { connectWithin, createSettlementTrigger, redisClient } from '@pps/shared/queues';
import { bootstrap, closeServer, listenOn, onShutdown, runAsClusterPrimary } from '@pps/shared/runtime';
import { startWebhooks } from '@pps/webhooks';
import { eq } from 'drizzle-orm';

/**
 * `npm start`: everything in one process. Migrations, the gateway on PORT with payments and merchants
 * bound in-process, the settlement workers, the outbox relay and webhook delivery workers, and (in development) a demo account created once and the demo shop of
 * the embedded checkout on DEMO_PORT, which charges the demo account when this start made it (its key is in hand only
 * then), else an account of its own whose new key it prints.
 */
const { config, log, database } = await bootstrap('pps');
// WEB_CONCURRENCY > 1: this process only supervises the workers (migrations are applied by now), each of which
// runs everything below; it exits when they have stopped.
const clustered = await runAsClusterPrimary({
  count: config.WEB_CONCURRENCY,
  log,
  deadlineMs: config.SHUTDOWN_TIMEOUT_MS + 5000,
  port: { port: config.PORT, variable: 'PORT', host: config.HOST },
});
if (clustered) {
  await database.close();
  await new Promise(() => {});
}
const metrics = createMetrics({ defaultMetrics: true });
// Under WEB_CONCURRENCY a scrape reaches one worker: it answers with every worker's sum, collected by the primary.
joinClusterMetrics(metrics.registry);
const serviceDeps = { config, db: database.db, readDb: database.readDb, log, clock: systemClock, metrics };
const redis = redisClient(config, { maxRetriesPerRequest: 1, lazyConnect: true, enableOfflineQueue: false });
redis.on('error', () => {});
// Connected before the first request (at most 2 s): else the rate limits of the demo account's first calls fail open.
await connectWithin(redis, 2000, () =>
  log.warn('redis unreachable; the API keeps working, background work resumes when it returns'),
);

const trigger = createSettlementTrigger(config, log);
const settlement = await startSettlement({ config, db: database.db, log, metrics });
const webhooks = await startWebhooks({ config, db: database.db, log, metrics });
// The accounts' requests, written after each answer by a thread of its own, on its own connection (REQUEST_LOG).
const requestLog = startRequestLog({ config, log, metrics });
const gateway = createGatewayApp(
  {
    config,
    db: database.db,
    log,
    clock: systemClock,
    auth: new AuthCache(database.db, config.AUTH_CACHE_TTL_MS),
    upstreams: {
      payments: inProcessUpstream('payments', createPaymentsApp(serviceDeps)),
      merchants: inProcessUpstream('merchants', createMerchantsApp(serviceDeps)),
    },
    redis,
    onClockAdvanced: (accountId) => trigger.settleAccount(accountId),
    queues: [...Object.values(settlement.queues), ...Object.values(webhooks.queues)],
    requestLog,
  },
  metrics,
);
const { server, port } = await listenOn(gateway.fetch, { port: config.PORT, variable: 'PORT', config, log });
log.info(
  { host: config.HOST, port, pid: process.pid, docs: `${config.PUBLIC_BASE_URL}/docs` },
  'payment processing service listening',
);

// One worker prints the demo account and how to reach the admin API (any process when not clustered).
const firstWorker = (process.env.WORKER_INDEX ?? '0') === '0';
let demoAccount: AccountKey | undefined;
if (config.NODE_ENV !== 'production' && firstWorker) {
  if (config.DEMO_ACCOUNT) demoAccount = await printDemoAccount();
  printAdminAccess();
}

// The demo shop (development, the same process): a shop page on DEMO_PORT embedding the card form (README, Quick start).
const demoShop =
  config.NODE_ENV !== 'production' && config.DEMO_PORT > 0 && firstWorker
    ? await openDemoShop(demoAccount).catch((error: unknown) => log.warn({ err: error }, 'demo shop not started'))
    : undefined;

onShutdown(log, [
  ...(demoShop ? [{ name: 'demo shop', close: demoShop.close }] : []),
  { name: 'http', close: () => closeServer(server, { log }) },
  { name: 'request log', close: requestLog.close },
  { name: 'settlement', close: settlement.close },
  { name: 'webhooks', close: webhooks.close },
  { name: 'settlement trigger', close: trigger.close },
  { name: 'redis', close: () => redis.quit() },
  { name: 'database', close: database.close },
]);

/** The demo account's key and app when this start made it (printed once, and kept in memory for the demo shop). */
async function printDemoAccount(): Promise<AccountKey | undefined> {
  const [existing] = await database.db
    .select()
    .from(schema.accounts)
    .where(eq(schema.accounts.name, 'Demo Platform'))
    .limit(1);
  if (existing) {
    log.info(
      { accountId: existing.id },
      'demo account exists (its API key was printed when it was created; make another with `npm run cli -- accounts:create --name X`)',
    );
    return undefined;
  }
  const demo = await createAccount({
    ctx: { db: database.db, clock: systemClock, log },
    input: { name: 'Demo Platform' },
  });
  // Printed once, on purpose, to the terminal: it is the only time this key is ever shown. The export line is what
  // README's worked example starts from (test/platform/readme.slow.test.ts pastes it as a reader would).
  process.stdout.write(
    `\nDemo account created (shown once):\n  API key: ${demo.apiKey}\n  App id:  ${demo.appId}\n` +
      `Paste this line into the shell you run README's worked example in:\n` +
      `export API=${config.PUBLIC_BASE_URL} KEY=${demo.apiKey} APP=${demo.appId}\n`,
  );
  return { accountId: demo.account.id, apiKey: demo.apiKey, appId: demo.appId };
}

/**
 * Starts the demo shop and says which account it charges, so that the payment id its confirmation shows can be looked
 * up: the demo account just printed, or (when this start did not make it, so its key is not known) the shop's own
 * account, whose key is new at each start and printed here once, with the export line of that account.
 */
async function openDemoShop(demo: AccountKey | undefined): Promise<DemoShop> {
  const account = await demoShopAccount({ ctx: { db: database.db, clock: systemClock, log }, input: { demo } });
  const shop = await startDemoShop({ config, log, account, api: (path, init) => gateway.request(path, init) });
  process.stdout.write(`\nDemo shop (embedded checkout): ${shop.url}\n${chargedAccount(account)}\n`);
  return shop;
}

function chargedAccount(account: DemoShopAccount): string {
  if (account.kind === 'demo') {
    return (
      `It charges the demo account above (${account.accountId}): the payment id it shows after paying is found\n` +
      `with the export line above (GET $API/payments/{id}).\n`
    );
  }
  const why = config.DEMO_ACCOUNT
    ? 'its key was shown only when an earlier start made it'
    : 'there is none (DEMO_ACCOUNT=false)';
  return (
    `It charges its own account, "${DEMO_SHOP_ACCOUNT}" (${account.accountId}), not the demo account:\n` +
    `${why}.\nThe shop account's key is new at each start (the one before stops working); to look up\n` +
    `the payment id the shop shows after paying (GET $API/payments/{id}), paste:\n` +
    `export API=${config.PUBLIC_BASE_URL} KEY=${account.apiKey} APP=${account.appId}\n`
  );
}

/**
 * How to reach /admin/* (README's ACH step calls it). The token itself is printed only while it is the well-known
 * development default: one that was set is a real secret and never reaches a terminal or a log.
 */
function printAdminAccess() {
  const token =
    config.ADMIN_TOKEN === DEV_DEFAULTS.ADMIN_TOKEN
      ? `${config.ADMIN_TOKEN} (development default; set ADMIN_TOKEN)`
      : '$ADMIN_TOKEN (the one you set; never printed)';
  process.stdout.write(
    `\nAdmin API: Authorization: Bearer ${token}\n` +
      `Queues:    ${config.PUBLIC_BASE_URL}/admin/queues (in a browser: any user name, the admin token as password)\n`,
  );
}
