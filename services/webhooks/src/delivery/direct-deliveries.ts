import type { Config } from '@pps/shared/config';
import { Batcher, type Db, isDatabaseUnavailable, schema, textArray } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import type { Queue } from 'bullmq';
import { sql } from 'drizzle-orm';
import type { DeliveryJobDeps } from './delivery-deps';
import type { LoadedDelivery } from './delivery-io';
import { attemptDelivery, databaseRetryMs, deliveryJob } from './delivery-job';

const { webhookDeliveries } = schema;

/**
 * A delivery the relay fanned out and leased to this process, when (ms since the epoch), and what its first attempt
 * needs, read by the relay's claim.
 */
export type LeasedDelivery = { id: string; endpointId: string; leasedAt: number; loaded: LoadedDelivery };

/** How long a leased delivery may wait here for its turn; past it, it is handed to a job instead. */
const MAX_QUEUED_MS = 5_000;

/**
 * How long the relay leases a delivery to its own process: the most it waits here, its request's timeout, and a
 * margin to record the attempt. Past it, a delivery still pending with no job alive goes to a job (the lease sweep).
 */
export const leaseMs = (config: Config) => MAX_QUEUED_MS + config.WEBHOOK_TIMEOUT_MS + 10_000;

type Handoff = { delivery: LeasedDelivery; delayMs: number };

/**
 * First attempts made by the relay's own process, without a job (docs/design.md, Webhook delivery): the relay
 * commits the deliveries it fanned out leased to this process and hands them here, where WEBHOOK_CONCURRENCY
 * attempts run at once, sharing the endpoint slots with the delivery jobs. Redis carries only what comes after:
 * a retry is recorded back to the relay, which enqueues its job; a delivery whose endpoint answers slowly, or
 * that waited here past MAX_QUEUED_MS (a fast endpoint's busy slots put it back in line here meanwhile), or that
 * met an unavailable database, is handed to a job (ids added to the queue in batches, the lease then ended).
 * Whatever this process cannot finish (it dies, Redis refuses a handoff) the lease sweep enqueues once the lease
 * has lapsed. The relay claims no more events while `room` waits, so what waits here stays bounded.
 */
export class DirectDeliveries {
  readonly #deps: DeliveryJobDeps;
  readonly #log: Logger;
  readonly #onRetry: () => void;
  readonly #concurrency: number;
  readonly #capacity: number;
  readonly #handoffs: Batcher<Handoff, void>;
  #waiting: LeasedDelivery[] = [];
  #running = 0;
  #handingOff = 0;
  #listeners: (() => boolean)[] = [];

  constructor(input: { deps: DeliveryJobDeps; queue: Queue; log: Logger; onRetry: () => void }) {
    this.#deps = input.deps;
    this.#log = input.log;
    this.#onRetry = input.onRetry;
    this.#concurrency = input.deps.config.WEBHOOK_CONCURRENCY;
    this.#capacity = 4 * this.#concurrency;
    this.#handoffs = new Batcher(
      (items) => handOff(input.deps.db, input.queue, items).then(() => items.map(() => undefined)),
      { maxBatch: 500, maxWaitMs: 0, maxInFlight: 2 },
    );
  }

  /** Deliveries committed leased to this process, with what their attempts need: attempted in turn. */
  add(deliveries: LeasedDelivery[]): void {
    if (deliveries.length === 0) return;
    this.#waiting.push(...deliveries);
    this.#pump();
  }

  /** Resolves once fewer than 4 × WEBHOOK_CONCURRENCY deliveries wait here. */
  room(): Promise<void> {
    return this.#until(() => this.#waiting.length < this.#capacity);
  }

  /** Resolves once every delivery handed here has been attempted or handed on (none taken after the relay stops). */
  drain(): Promise<void> {
    return this.#until(() => this.#waiting.length === 0 && this.#running === 0 && this.#handingOff === 0);
  }

  #until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!condition()) return false;
        resolve();
        return true;
      };
      this.#listeners.push(check);
    });
  }

  #changed() {
    this.#listeners = this.#listeners.filter((check) => !check());
  }

  #pump() {
    while (this.#running < this.#concurrency && this.#waiting.length > 0) {
      const delivery = this.#waiting.shift() as LeasedDelivery;
      this.#running += 1;
      void this.#attempt(delivery).finally(() => {
        this.#running -= 1;
        this.#pump();
        this.#changed();
      });
    }
    this.#changed();
  }

  async #attempt(delivery: LeasedDelivery): Promise<void> {
    if (Date.now() - delivery.leasedAt > MAX_QUEUED_MS) return this.#handOff(delivery, 0);
    try {
      const { id: deliveryId, endpointId, loaded } = delivery;
      const result = await attemptDelivery(this.#deps, { deliveryId, endpointId, loaded }, true);
      if (result.kind !== 'busy') this.#deps.metrics?.webhookFirstAttempts.inc({ way: 'direct' });
      if (result.kind === 'busy') {
        // A fast endpoint's slots were taken a moment: back in line here, which costs nothing, while its time allows.
        if (!result.slow && Date.now() - delivery.leasedAt < MAX_QUEUED_MS) {
          this.#waiting.push(delivery);
          return;
        }
        return this.#handOff(delivery, Math.round(this.#deps.endpointSlots.stepAsideMs(delivery.endpointId)));
      }
      if (result.kind === 'retry') this.#onRetry();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) {
        this.#log.warn(
          { err: (error as Error).message, deliveryId: delivery.id },
          'direct delivery failed; handed to a job',
        );
      }
      return this.#handOff(delivery, databaseRetryMs());
    }
  }

  /** To a job; when Redis refuses, the lease sweep enqueues it once its lease has lapsed. */
  #handOff(delivery: LeasedDelivery, delayMs: number): Promise<void> {
    this.#deps.metrics?.webhookFirstAttempts.inc({ way: 'handed_off' });
    this.#handingOff += 1;
    return this.#handoffs
      .submit({ delivery, delayMs })
      .catch((error: unknown) => {
        this.#log.warn(
          { err: (error as Error).message, deliveryId: delivery.id },
          'handoff to a job failed; the lease sweep will',
        );
      })
      .finally(() => {
        this.#handingOff -= 1;
        this.#changed();
      });
  }
}

/**
 * Adds the deliveries' jobs (the job id is the delivery's, so one added twice is one job), then ends their leases:
 * a job alive carries them now. The leases outlive a failure to end them; the sweep then finds the jobs alive.
 */
async function handOff(db: Db, queue: Queue, items: Handoff[]): Promise<void> {
  const at = Date.now();
  await queue.addBulk(
    items.map(({ delivery, delayMs }) =>
      deliveryJob({ ...delivery, redeliveries: 0, nextAttemptAt: new Date(at + delayMs) }),
    ),
  );
  await db
    .update(webhookDeliveries)
    .set({ leasedUntil: null })
    .where(sql`${webhookDeliveries.id} = any(${textArray(items.map(({ delivery }) => delivery.id))})`)
    .catch(() => {});
}
