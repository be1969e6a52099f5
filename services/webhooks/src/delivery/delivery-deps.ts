import type { Config } from '@pps/shared/config';
import { FieldCipher } from '@pps/shared/crypto';
import type { Db } from '@pps/shared/db';
import type { Metrics } from '@pps/shared/metrics';
import type { Agent } from 'undici';
import type { WebhooksDeps } from '../deps';
import { receiverAgent } from './delivery';
import { type DeliveryIo, deliveryIo } from './delivery-io';
import { EndpointSlots } from './endpoint-slots';

/** What the delivery jobs of one process share: its deps, the endpoints' secrets' cipher and its endpoint slots. */
export type DeliveryJobDeps = {
  config: Config;
  db: Db;
  /** Opens the endpoints' signing secrets (encrypted at rest with DATA_ENCRYPTION_KEYS). */
  cipher: FieldCipher;
  metrics?: Metrics;
  /** Webhook deliveries in flight per endpoint in this process. */
  endpointSlots: EndpointSlots;
  /** Deliveries' loads and attempts' records, batched across the jobs running at once. */
  io: DeliveryIo;
  /** The process's keep-alive connections to receivers. */
  agent: Agent;
};

export function deliveryJobDeps(deps: WebhooksDeps): DeliveryJobDeps {
  const base = {
    config: deps.config,
    db: deps.db,
    cipher: new FieldCipher(deps.config.DATA_ENCRYPTION_KEYS),
    metrics: deps.metrics,
    agent: receiverAgent(deps.config),
  };
  return { ...base, endpointSlots: new EndpointSlots(deps.config.WEBHOOK_ENDPOINT_CONCURRENCY), io: deliveryIo(base) };
}
