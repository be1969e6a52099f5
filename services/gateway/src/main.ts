import { systemClock } from '@pps/shared/clock';
import { createMetrics } from '@pps/shared/metrics';
import { connectWithin, createSettlementTrigger, redisClient } from '@pps/shared/queues';
import { bootstrap, closeServer, listenOn, onShutdown } from '@pps/shared/runtime';
import { createGatewayApp } from './app';
import { AuthCache } from './auth/auth-cache';
import { httpUpstream } from './proxy/upstream';
import { startRequestLog } from './request-log/run/writer';

/** Runs the gateway alone; payments and merchants are reached over HTTP (PAYMENTS_URL, MERCHANTS_URL). */
const { config, log, database } = await bootstrap('gateway');
if (!config.PAYMENTS_URL || !config.MERCHANTS_URL) {
  log.fatal('PAYMENTS_URL and MERCHANTS_URL are required when the gateway runs alone (npm start runs everything)');
  process.exit(1);
}
const redis = redisClient(config, { maxRetriesPerRequest: 1, lazyConnect: true, enableOfflineQueue: false });
redis.on('error', () => {});
// Connected before the first request (at most 2 s): else the first requests' rate limits fail open.
await connectWithin(redis, 2000, () => log.warn('redis unreachable; the API keeps working'));
// A clock move enqueues a settlement pass for that account (the settlement workers run elsewhere).
const trigger = createSettlementTrigger(config, log);
const upstreams = {
  payments: httpUpstream('payments', config.PAYMENTS_URL, config.INTERNAL_SECRET),
  merchants: httpUpstream('merchants', config.MERCHANTS_URL, config.INTERNAL_SECRET),
};
const metrics = createMetrics({ defaultMetrics: true });
// The accounts' requests, written after each answer by a thread of its own, on its own connection (REQUEST_LOG).
const requestLog = startRequestLog({ config, log, metrics });
const app = createGatewayApp(
  {
    config,
    db: database.db,
    log,
    clock: systemClock,
    auth: new AuthCache(database.db, config.AUTH_CACHE_TTL_MS),
    upstreams,
    redis,
    onClockAdvanced: (accountId) => trigger.settleAccount(accountId),
    queues: trigger.queues,
    requestLog,
  },
  metrics,
);
const { server, port } = await listenOn(app.fetch, { port: config.PORT, variable: 'PORT', config, log });
log.info({ host: config.HOST, port }, 'gateway listening');
onShutdown(log, [
  { name: 'http', close: () => closeServer(server, { log }) },
  { name: 'request log', close: requestLog.close },
  { name: 'upstreams', close: () => Promise.all([upstreams.payments.close(), upstreams.merchants.close()]) },
  { name: 'settlement trigger', close: trigger.close },
  { name: 'redis', close: () => redis.quit() },
  { name: 'database', close: database.close },
]);
