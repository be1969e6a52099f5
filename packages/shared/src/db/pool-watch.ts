import type postgres from 'postgres';

/** The probe's statement, by its text: what a test counting the statements a request sends leaves out. */
export const POOL_PROBE = 'select 1 as pool_probe';

/** How often the watch sends its probe while the pool answers. */
const PROBE_PERIOD_MS = 250;

/**
 * How long the database has not answered through a pool: what `shedding` reads to refuse new work at once rather
 * than queue it to time out (docs/design.md, Deadlines).
 */
export type PoolWatch = {
  /** Milliseconds since the pool last answered, beyond the probe's own period; 0 while it answers. */
  stalledMs: () => number;
};

const watches = new WeakMap<object, PoolWatch>();

/**
 * One watch per pool (made on first ask): a probe (`POOL_PROBE`) sent through the pool every 250 ms after the last
 * one answered. It waits in the pool's queue like any request's statement, so its answer is the queue's wait: a
 * few milliseconds under load, and none at all while the server is frozen, a lock held on every connection or the
 * network path gone. `stalledMs` is the time since it last answered; a failed probe (the database refusing
 * connections) counts as no answer. The watch ends with the pool (its probe then fails with `CONNECTION_ENDED`) and
 * never keeps a process alive.
 */
export function watchPool(sql: postgres.Sql): PoolWatch {
  const known = watches.get(sql);
  if (known) return known;
  let answeredAt = performance.now();
  const probe = () => {
    sql.unsafe(POOL_PROBE).then(
      () => {
        answeredAt = performance.now();
        setTimeout(probe, PROBE_PERIOD_MS).unref();
      },
      (error: { code?: string }) => {
        if (error?.code === 'CONNECTION_ENDED') return;
        setTimeout(probe, PROBE_PERIOD_MS).unref();
      },
    );
  };
  probe();
  const watch = { stalledMs: () => Math.max(0, performance.now() - answeredAt - PROBE_PERIOD_MS) };
  watches.set(sql, watch);
  return watch;
}
