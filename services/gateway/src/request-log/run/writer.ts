import { Worker } from 'node:worker_threads';
import type { Config } from '@pps/shared/config';
import { type Logger, moduleLogger } from '@pps/shared/logger';
import type { Metrics } from '@pps/shared/metrics';
import { Counter, Gauge } from 'prom-client';
import { type BodySource, type CapturedRequest, isResponse } from '../model/entry';
import type { FromWriter, ToWriter, WriterOptions } from './writer-thread';

/**
 * The request log of one gateway process. `record` is all the request path does: a push onto an array. Every
 * FLUSH_EVERY_MS (or at once when BATCH_SIZE wait) the requests go to the writer thread (`writer-thread.ts`), which
 * makes their rows (bodies parsed, redacted and cut) and writes them on a database connection of its own: none of
 * that work takes the thread that answers requests. While the database does not answer, the rows wait there and are
 * sent again. What waits is bounded on both sides (`capacity` requests here, as many rows there): past it the oldest
 * are dropped and counted (`pps_request_log_dropped_total`), so the log never holds a request back, never fails one,
 * and never grows without bound.
 */
export type RequestLog = {
  /** False with REQUEST_LOG=false: nothing is recorded, the gateway mounts no recorder. */
  enabled: boolean;
  /** Keeps a request for the writer; never waits, never throws. */
  record: (captured: CapturedRequest) => void;
  /** Hands over what waits, and resolves once the writer has written it, or the database has refused it. */
  flush: () => Promise<void>;
  /** Stops the timer, writes what waits, once, and stops the writer thread. */
  close: () => Promise<void>;
};

export const FLUSH_EVERY_MS = 250;
export const BATCH_SIZE = 500;
/** Requests, and rows, that may wait for the writer: about 10 s of a busy process. */
export const DEFAULT_CAPACITY = 10_000;
/** How long `close` waits for the writer's last write before stopping it. */
const CLOSE_WAIT_MS = 10_000;

const disabled: RequestLog = {
  enabled: false,
  record: () => {},
  flush: async () => {},
  close: async () => {},
};

declare const __PPS_BUNDLED__: boolean | undefined;
const bundled = typeof __PPS_BUNDLED__ !== 'undefined' && __PPS_BUNDLED__;

/**
 * The writer thread: bundled, its own entry point beside this one; from the sources (tsx, the tests), its TypeScript
 * loaded through tsx, which a worker thread does not inherit from the thread that starts it.
 */
function startWriterThread(options: WriterOptions): Worker {
  const settings = { workerData: options };
  if (bundled) return new Worker(new URL('./request-log-writer.js', import.meta.url), settings);
  const source = new URL('./writer-thread.ts', import.meta.url).href;
  const load = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(load, { ...settings, eval: true });
}

export function startRequestLog(deps: {
  config: Pick<Config, 'REQUEST_LOG' | 'DATABASE_URL' | 'DATABASE_CONNECT_TIMEOUT_MS'>;
  log: Logger;
  metrics?: Metrics;
  /** Where the rows go: DATABASE_URL unless given (a database that is away, in a test). */
  databaseUrl?: string;
  capacity?: number;
}): RequestLog {
  if (!deps.config.REQUEST_LOG) return disabled;
  const log = moduleLogger(deps.log, 'request-log');
  const capacity = deps.capacity ?? DEFAULT_CAPACITY;
  const counters = requestLogMetrics(deps.metrics);
  const options: WriterOptions = {
    databaseUrl: deps.databaseUrl ?? deps.config.DATABASE_URL,
    connectTimeoutMs: deps.config.DATABASE_CONNECT_TIMEOUT_MS,
    capacity,
  };

  let waiting: CapturedRequest[] = [];
  let writerWaiting = 0;
  let closing = false;
  let nextId = 0;
  const pending = new Map<number, () => void>();

  const onMessage = (message: FromWriter) => {
    if (message.kind === 'written') counters.written.inc(message.count);
    else if (message.kind === 'dropped') counters.dropped.inc(message.count);
    else if (message.kind === 'waiting') writerWaiting = message.count;
    else if (message.kind === 'failing')
      log.warn({ err: message.error, waiting: message.waiting }, 'request log not written; retrying');
    else if (message.kind === 'recovered') log.info({ waiting: message.waiting }, 'request log written again');
    else {
      pending.get(message.id)?.();
      pending.delete(message.id);
    }
    counters.waiting.set(waiting.length + writerWaiting);
  };

  let worker = start();
  function start(): Worker {
    const thread = startWriterThread(options);
    thread.unref();
    thread.on('message', onMessage);
    thread.on('error', (error) => log.error({ err: error }, 'request log writer failed'));
    thread.on('exit', (code) => {
      for (const resolve of pending.values()) resolve();
      pending.clear();
      if (closing) return;
      // Its rows are lost (counted by what it last said was waiting); the requests still to come are not.
      log.error({ code, lost: writerWaiting }, 'request log writer stopped; starting another');
      counters.dropped.inc(writerWaiting);
      writerWaiting = 0;
      worker = start();
    });
    return thread;
  }

  /**
   * A body as the writer thread can take it: text, or bytes of their own (a Node Buffer's `slice` is a view, and a
   * view is sent with the whole buffer it is in). One still to be read (a copied Response, what Hono read) is read
   * by a promise added to `reads`, which puts it in place.
   */
  function settleBody(captured: CapturedRequest, which: 'requestBody' | 'responseBody', reads: Promise<void>[]) {
    const source = captured[which];
    if (source === undefined || typeof source === 'string') return;
    if (source instanceof Uint8Array) {
      captured[which] = new Uint8Array(source);
      return;
    }
    const read = async (): Promise<BodySource> => {
      const body = isResponse(source) ? await source.text() : await source;
      return typeof body === 'string' || body === undefined ? body : new Uint8Array(body);
    };
    reads.push(
      read().then(
        (body) => {
          captured[which] = body;
        },
        () => {
          captured[which] = undefined;
        },
      ),
    );
  }

  /**
   * Hands what waits to the writer thread, after any hand-over still reading its bodies: one at a time, in order, so
   * `flush` and `close` (which await it) never pass a hand-over that the timer began a moment before.
   */
  let handing: Promise<void> = Promise.resolve();
  function handOver(): Promise<void> {
    handing = handing.then(handOverNow);
    return handing;
  }

  /** Hands what waits to the writer thread (at once, unless a body is still to be read). */
  async function handOverNow() {
    if (waiting.length === 0) return;
    const requests = waiting;
    waiting = [];
    const reads: Promise<void>[] = [];
    for (const captured of requests) {
      settleBody(captured, 'requestBody', reads);
      settleBody(captured, 'responseBody', reads);
    }
    if (reads.length > 0) await Promise.all(reads);
    worker.postMessage({ kind: 'requests', requests } satisfies ToWriter);
  }

  /** Asks the writer thread for `kind` and waits for its answer (at most `timeoutMs`). */
  function ask(kind: 'flush' | 'close', timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
    const id = nextId++;
    return new Promise((resolve) => {
      const timer = Number.isFinite(timeoutMs) ? setTimeout(resolve, timeoutMs) : undefined;
      pending.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ kind, id } satisfies ToWriter);
    });
  }

  const timer = setInterval(() => void handOver(), FLUSH_EVERY_MS);
  timer.unref();

  return {
    enabled: true,
    record(captured) {
      waiting.push(captured);
      if (waiting.length > capacity) {
        waiting.shift();
        counters.dropped.inc();
      }
      if (waiting.length === BATCH_SIZE) setImmediate(handOver);
    },
    async flush() {
      await handOver();
      await ask('flush');
    },
    async close() {
      clearInterval(timer);
      await handOver();
      closing = true;
      await ask('close', CLOSE_WAIT_MS);
      await worker.terminate();
    },
  };
}

type RequestLogCounters = { dropped: Counter; written: Counter; waiting: Gauge };

/** The log's figures on the process's `/metrics` (one set per registry: a second log of the process adds to it). */
function requestLogMetrics(metrics: Metrics | undefined): RequestLogCounters {
  const registers = metrics ? [metrics.registry] : [];
  const existing = (name: string) => metrics?.registry.getSingleMetric(name);
  return {
    dropped:
      (existing('pps_request_log_dropped_total') as Counter | undefined) ??
      new Counter({
        name: 'pps_request_log_dropped_total',
        help: 'Requests the request log dropped: the oldest, when more waited than it keeps (the database slow or away)',
        registers,
      }),
    written:
      (existing('pps_request_log_written_total') as Counter | undefined) ??
      new Counter({ name: 'pps_request_log_written_total', help: 'Requests written to the request log', registers }),
    waiting:
      (existing('pps_request_log_waiting') as Gauge | undefined) ??
      new Gauge({
        name: 'pps_request_log_waiting',
        help: 'Requests waiting to be written to the request log',
        registers,
      }),
  };
}
