import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../logger';

/**
 * `/metrics` under `WEB_CONCURRENCY` > 1 (docs/decisions.md, Metrics): each worker counts in its own registry, and
 * whichever worker a scrape reaches asks the cluster primary, which collects every worker's registry over IPC and
 * sums them with prom-client's `AggregatorRegistry.aggregate` (each metric by its `aggregator`: counters and
 * histograms summed, `process_start_time_seconds` left out, event-loop lag averaged).
 *
 * Not `AggregatorRegistry#clusterMetrics()`: it asks every connected worker, also one still starting that has no
 * listener yet, so a scrape during a worker's start or restart would wait 5 s and fail. Here a worker is asked
 * only once it has said it is ready, and one that exits mid-collection is left out (its counters went with it).
 */

const READY = 'pps:metrics:ready'; // worker → primary: my registry can be collected
const ACK = 'pps:metrics:ack'; // primary → worker: I aggregate; send scrapes to me
const COLLECT = 'pps:metrics:collect'; // primary → worker: your registry as JSON
const COLLECTED = 'pps:metrics:collected'; // worker → primary
const SCRAPE = 'pps:metrics:scrape'; // worker → primary: the whole cluster's text, please
const SCRAPED = 'pps:metrics:scraped'; // primary → worker

/** A worker that does not answer within this fails the scrape (under Prometheus' default 10 s scrape timeout). */
const COLLECT_TIMEOUT_MS = 3000;
/** What a worker waits for the primary's answer: the primary's own wait, and then some. */
const SCRAPE_TIMEOUT_MS = COLLECT_TIMEOUT_MS + 2000;

type Message = { type: string; id?: number; metrics?: object[]; text?: string; error?: string };
const isMessage = (value: unknown): value is Message =>
  typeof value === 'object' && value !== null && typeof (value as Message).type === 'string';

/**
 * In the cluster primary (`runAsClusterPrimary`), before forking: answers workers' scrapes with the sum of every
 * ready worker's metrics, plus `pps_cluster_workers` (how many the sum covers). A worker that does not answer in
 * time fails that scrape: a sum missing a live worker would drop, which Prometheus reads as a counter reset.
 */
export function aggregateWorkerMetrics(log: Logger): void {
  const ready = new Set<Worker>();
  const waiting = new Map<number, { worker: Worker; settle: (message: Message | undefined) => void }>();
  let nextId = 0;

  const collect = (worker: Worker) =>
    new Promise<object[] | undefined>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`worker ${worker.id} did not answer within ${COLLECT_TIMEOUT_MS} ms`));
      }, COLLECT_TIMEOUT_MS);
      waiting.set(id, {
        worker,
        settle: (message) => {
          clearTimeout(timer);
          waiting.delete(id);
          if (message?.error) reject(new Error(message.error));
          else resolve(message?.metrics);
        },
      });
      // A worker gone between the two calls: left out, like one that exits mid-collection.
      worker.send({ type: COLLECT, id }, (error: Error | null) => error && waiting.get(id)?.settle(undefined));
    });

  const scrape = async () => {
    const answers = await Promise.all([...ready].map(collect));
    const workers = answers.filter((metrics): metrics is object[] => metrics !== undefined);
    const registry = AggregatorRegistry.aggregate(workers);
    new Gauge({
      name: 'pps_cluster_workers',
      help: 'Cluster workers whose metrics this scrape sums',
      registers: [registry],
    }).set(workers.length);
    return registry.metrics();
  };

  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === READY) {
      ready.add(worker);
      worker.send({ type: ACK });
    } else if (message.type === COLLECTED && message.id !== undefined) {
      waiting.get(message.id)?.settle(message);
    } else if (message.type === SCRAPE) {
      const id = message.id;
      const answer = (reply: Message) => {
        if (worker.isConnected()) worker.send(reply);
      };
      scrape().then(
        (text) => answer({ type: SCRAPED, id, text }),
        (error: Error) => {
          log.warn({ err: error.message }, 'cluster metrics scrape failed');
          answer({ type: SCRAPED, id, error: error.message });
        },
      );
    }
  });
  cluster.on('exit', (worker) => {
    ready.delete(worker);
    for (const pending of [...waiting.values()]) if (pending.worker === worker) pending.settle(undefined);
  });
}

/** This worker's part: the registry it joined with, and whether a primary answered that it aggregates. */
let joined: { registry: Registry; aggregated: boolean } | undefined;
const scrapes = new Map<number, (message: Message) => void>();
let nextScrape = 0;

/**
 * In a cluster worker: offers `registry` to the primary's collection and, once the primary has acknowledged, sends
 * this process's scrapes to it (`clusterMetricsText`). Call once, at start, so a worker is counted whether or not a
 * scrape ever reaches it. Outside a cluster worker it does nothing; under a primary that does not aggregate (no
 * acknowledgement) the worker keeps serving its own registry.
 */
export function joinClusterMetrics(registry: Registry): void {
  if (!cluster.isWorker || joined || !process.send) return;
  const state = { registry, aggregated: false };
  joined = state;
  process.on('message', (message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === ACK) {
      state.aggregated = true;
    } else if (message.type === COLLECT) {
      const id = message.id;
      registry.getMetricsAsJSON().then(
        (metrics) => process.send?.({ type: COLLECTED, id, metrics }),
        (error: Error) => process.send?.({ type: COLLECTED, id, error: error.message }),
      );
    } else if (message.type === SCRAPED && message.id !== undefined) {
      scrapes.get(message.id)?.(message);
    }
  });
  process.send({ type: READY });
}

/** The text a scrape of `registry` answers: the whole cluster's when this worker joined with it, else its own. */
export function clusterMetricsText(registry: Registry): Promise<string> {
  if (!joined?.aggregated || joined.registry !== registry || !process.send) return registry.metrics();
  const send = process.send.bind(process);
  return new Promise((resolve, reject) => {
    const id = nextScrape++;
    const timer = setTimeout(() => {
      scrapes.delete(id);
      reject(new Error(`the cluster primary did not answer within ${SCRAPE_TIMEOUT_MS} ms`));
    }, SCRAPE_TIMEOUT_MS);
    scrapes.set(id, (message) => {
      clearTimeout(timer);
      scrapes.delete(id);
      if (message.text !== undefined) resolve(message.text);
      else reject(new Error(message.error ?? 'no metrics'));
    });
    send({ type: SCRAPE, id });
  });
}
