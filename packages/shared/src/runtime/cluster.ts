import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../logger';
import { aggregateWorkerMetrics } from '../metrics/cluster';
import { type NamedPort, refuseTakenPorts } from './ports';
import { exitAfterLogs } from './serve';

/** A worker that dies this soon after it started is not restarted again at once (a crash loop waits). */
const RESTART_BACKOFF_MS = 1000;

/**
 * `npm start` on every core: with `count` > 1 the primary process forks `count` workers (node:cluster, which share
 * the listening port) and returns true: it serves nothing itself. It restarts a worker that dies unexpectedly,
 * and on SIGTERM/SIGINT passes the signal to every worker (each drains its requests and closes its pools) and
 * exits once they all have, or after `deadlineMs` with SIGKILL for the rest. In a worker, or with `count` 1, it
 * returns false and the caller starts the service as usual. `WORKER_INDEX` tells a worker which one it is.
 * The primary also answers `/metrics` for the whole cluster: workers that `joinClusterMetrics` are summed. Before
 * forking it makes sure `port`, which the workers will share, is free: taken, each worker would say so, die and be
 * started again, forever; the primary says it once and exits 1.
 */
export async function runAsClusterPrimary(options: {
  count: number;
  log: Logger;
  deadlineMs: number;
  port: NamedPort & { host: string };
}): Promise<boolean> {
  const { count, log, deadlineMs } = options;
  if (count <= 1 || !cluster.isPrimary) return false;
  await refuseTakenPorts([options.port], options.port.host, log);
  let stopping = false;
  aggregateWorkerMetrics(log);
  const fork = (index: number) => {
    const worker = cluster.fork({ WORKER_INDEX: String(index) });
    const started = Date.now();
    worker.once('exit', (code, signal) => {
      if (stopping) return;
      log.error({ worker: index, code, signal }, 'worker died; starting another');
      setTimeout(() => stopping || fork(index), Math.max(0, RESTART_BACKOFF_MS - (Date.now() - started)));
    });
  };
  for (let index = 0; index < count; index++) fork(index);
  log.info({ workers: count }, 'cluster primary started');

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter(
      (worker): worker is Worker => worker !== undefined && !worker.isDead(),
    );
    log.info({ signal, workers: workers.length }, 'stopping workers');
    const stopped = () => {
      log.info('stopped');
      exitAfterLogs(log, 0);
    };
    // Counted by each worker's own exit: cluster.workers still holds one that exited before it disconnected.
    let alive = workers.length;
    if (alive === 0) stopped();
    for (const worker of workers) {
      worker.once('exit', () => --alive === 0 && stopped());
      worker.process.kill(signal);
    }
    const deadline = setTimeout(() => {
      log.warn('workers did not stop in time: killing them');
      for (const worker of workers) worker.process.kill('SIGKILL');
    }, deadlineMs);
    deadline.unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return true;
}
