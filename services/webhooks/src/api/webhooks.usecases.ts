import type { RecoverInput, WebhookCreateInput, WebhookUpdateInput } from '@pps/shared/contract';
import type { FieldCipher } from '@pps/shared/crypto';
import { type Travel, withTransaction } from '@pps/shared/db';
import { writeEvent } from '@pps/shared/events';
import {
  invalidDateRange,
  keysetOf,
  notFound,
  ownedBy,
  type PageQuery,
  type ServiceContext,
  wallClockNow,
} from '@pps/shared/http';
import { isId, newId } from '@pps/shared/ids';
import {
  type DeliveryView,
  deliveryPlace,
  insertDelivery,
  listEndpointDeliveries,
  reopenFailedDeliveries,
} from '../delivery/deliveries.repository';
import { newWebhookSecret } from '../delivery/secrets';
import { webhookTargetProblem } from '../delivery/url-guard';
import { type EventRow, findEvent, markRelayed, notifyOutbox } from './events.repository';
import { webhookErrors, webhookPointers } from './webhooks.errors';
import { webhookResource } from './webhooks.presenter';
import {
  accountPin,
  endpointPlace,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  updateEndpoint,
  type WebhookEndpoint,
  type WebhookEndpointChanges,
} from './webhooks.repository';

// Webhooks live in real time, not the account's sandbox clock: the delivery workers sign, retry and expire
// rotated secrets by the wall clock (docs/design.md: event timestamps use real time), hence wallClockNow.

/** A blank description is no description. */
const descriptionOf = (value: string | null | undefined) => (value ? value : null);

/** In production (unless WEBHOOK_ALLOW_PRIVATE) the URL's host must resolve, and not to a private address. */
async function assertSafeTarget(ctx: ServiceContext, url: string): Promise<void> {
  if (ctx.config.NODE_ENV !== 'production' || ctx.config.WEBHOOK_ALLOW_PRIVATE) return;
  const problem = await webhookTargetProblem(url, { allowPrivate: false });
  if (problem) throw webhookErrors.unsafeTarget(problem);
}

/**
 * An endpoint of the caller's account: 404 when unknown, malformed or deleted; 403 when another account's.
 * `pointer` names the body field the id came from, when it came from the body.
 */
export async function ownedEndpoint(
  ctx: ServiceContext,
  id: string,
  options: { lock?: boolean; pointer?: string } = {},
): Promise<WebhookEndpoint> {
  const endpoint = isId('webhook', id) ? await findEndpoint(ctx.db, id, { lock: options.lock }) : undefined;
  // A deleted endpoint no longer exists, whoever's it was.
  return ownedBy(endpoint?.deletedAt ? undefined : endpoint, ctx, 'webhook', id, { pointer: options.pointer });
}

/** POST /webhooks: a new endpoint with a new signing secret, stored encrypted; the clear one is returned once. */
export async function createWebhook({
  ctx,
  cipher,
  input,
}: {
  ctx: ServiceContext;
  cipher: FieldCipher;
  input: WebhookCreateInput;
}): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  await assertSafeTarget(ctx, input.url);
  const secret = newWebhookSecret();
  const now = wallClockNow(ctx);
  const endpoint = await insertEndpoint(ctx.db, {
    id: newId('webhook'),
    accountId: ctx.accountId,
    url: input.url,
    events: input.events,
    description: descriptionOf(input.description),
    // Given, else the account's pin, read in the insert (docs/api.md, Versions).
    apiVersion: input.apiVersion ?? accountPin(ctx.accountId),
    enabled: true,
    disabledReason: null,
    secretEnc: cipher.encrypt(secret),
    createdAt: now,
    updatedAt: now,
  });
  ctx.log.info({ webhookId: endpoint.id, events: endpoint.events }, 'webhook endpoint created');
  return { endpoint, secret };
}

export async function getWebhook({ ctx, input }: { ctx: ServiceContext; input: { id: string } }) {
  return ownedEndpoint(ctx, input.id);
}

/** GET /webhooks: the account's endpoints, newest first, deleted ones left out. */
export async function listAccountWebhooks({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: PageQuery;
}): Promise<{ rows: WebhookEndpoint[]; total: number; travel?: Travel }> {
  const keyset = await keysetOf(input, (id) => endpointPlace(ctx.db, ctx.accountId, id));
  return listEndpoints(ctx.db, { accountId: ctx.accountId, limit: input.limit, offset: input.offset, keyset });
}

/** PUT /webhooks/{id}: any of url, events, description, enabled, apiVersion; enabling clears `disabledReason`. */
export async function updateWebhook({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { id: string; attributes: WebhookUpdateInput };
}): Promise<WebhookEndpoint> {
  const { id, attributes } = input;
  await ownedEndpoint(ctx, id);
  if (attributes.url !== undefined) await assertSafeTarget(ctx, attributes.url);
  const changes: WebhookEndpointChanges = { updatedAt: wallClockNow(ctx) };
  if (attributes.url !== undefined) changes.url = attributes.url;
  if (attributes.events !== undefined) changes.events = attributes.events;
  if (attributes.description !== undefined) changes.description = descriptionOf(attributes.description);
  if (attributes.enabled !== undefined) changes.enabled = attributes.enabled;
  if (attributes.apiVersion !== undefined) changes.apiVersion = attributes.apiVersion;
  // Turned back on: a fresh start, its failing streak forgotten (WEBHOOK_DISABLE_AFTER_DAYS counts anew).
  if (attributes.enabled === true) Object.assign(changes, { disabledReason: null, failingSince: null });
  const endpoint = await updateEndpoint(ctx.db, id, changes);
  if (!endpoint) throw notFound('webhook', id);
  ctx.log.info({ webhookId: id, changed: Object.keys(attributes) }, 'webhook endpoint updated');
  return endpoint;
}

/** DELETE /webhooks/{id}: a soft delete; the endpoint answers 404 from then on and receives nothing more. */
export async function deleteWebhook({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<void> {
  await ownedEndpoint(ctx, input.id);
  const now = wallClockNow(ctx);
  const endpoint = await updateEndpoint(ctx.db, input.id, { deletedAt: now, updatedAt: now });
  if (!endpoint) throw notFound('webhook', input.id);
  ctx.log.info({ webhookId: input.id }, 'webhook endpoint deleted');
}

/**
 * POST /webhooks/{id}/rotate-secret: a new secret; the current one becomes the previous one, which keeps
 * signing until now + WEBHOOK_SECRET_OVERLAP_HOURS (real time). A secret older than that is dropped. The row
 * is locked, so two rotations at once each keep the other's secret as previous, never lose one.
 */
export async function rotateWebhookSecret({
  ctx,
  cipher,
  input,
}: {
  ctx: ServiceContext;
  cipher: FieldCipher;
  input: { id: string };
}): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  return withTransaction(ctx.db, async (tx) => {
    const current = await ownedEndpoint({ ...ctx, db: tx }, input.id, { lock: true });
    const secret = newWebhookSecret();
    const now = wallClockNow(ctx);
    const endpoint = await updateEndpoint(tx, current.id, {
      secretEnc: cipher.encrypt(secret),
      previousSecretEnc: current.secretEnc,
      previousSecretExpiresAt: new Date(now.getTime() + ctx.config.WEBHOOK_SECRET_OVERLAP_HOURS * 3_600_000),
      updatedAt: now,
    });
    if (!endpoint) throw notFound('webhook', input.id);
    ctx.log.info({ webhookId: endpoint.id }, 'webhook secret rotated');
    return { endpoint, secret };
  });
}

/**
 * POST /webhooks/{id}/test: a `webhook.test` event (the endpoint without its secret) and its one delivery, to
 * this endpoint only, in one transaction. The event is marked relayed so the relay does not fan it out to the
 * account's other endpoints; the relay, woken by NOTIFY, enqueues the delivery. 422 when the endpoint is
 * disabled (the workers would fail the delivery at once).
 */
export async function sendTestEvent({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<EventRow> {
  return withTransaction(ctx.db, async (tx) => {
    const endpoint = await ownedEndpoint({ ...ctx, db: tx }, input.id, { lock: true });
    if (!endpoint.enabled) throw webhookErrors.disabled(endpoint.id);
    const now = wallClockNow(ctx);
    const written = await writeEvent(tx, {
      accountId: endpoint.accountId,
      type: 'webhook.test',
      resource: webhookResource(endpoint),
      previousStatus: null,
      requestId: ctx.requestId,
      now,
    });
    const delivery = await insertDelivery(tx, {
      accountId: endpoint.accountId,
      endpointId: endpoint.id,
      eventId: written.id,
      now,
    });
    await markRelayed(tx, written.id);
    await notifyOutbox(tx);
    const event = await findEvent(tx, written.id);
    if (!event) throw notFound('event', written.id);
    ctx.log.info({ webhookId: endpoint.id, eventId: event.id, deliveryId: delivery.id }, 'webhook test event queued');
    return event;
  });
}

/** GET /webhooks/{id}/deliveries: newest first, each with its attempts. */
export async function listWebhookDeliveries({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: PageQuery & { id: string };
}): Promise<{ rows: DeliveryView[]; total: number; travel?: Travel }> {
  const endpoint = await ownedEndpoint(ctx, input.id);
  const keyset = await keysetOf(input, (id) => deliveryPlace(ctx.db, endpoint.id, id));
  return listEndpointDeliveries(ctx.db, { endpointId: endpoint.id, limit: input.limit, offset: input.offset, keyset });
}

/**
 * POST /webhooks/{id}/recover: every failed delivery of an enabled endpoint made in the window reopened (after an
 * outage longer than the retries), in one transaction that wakes the relay on commit. `since` after `until` is a
 * 400 at `since`; a disabled endpoint is 422 (its deliveries would only fail again).
 */
export async function recoverWebhook({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { id: string; attributes: RecoverInput };
}): Promise<{ endpointId: string; since: Date | null; until: Date | null; reopened: number }> {
  const since = input.attributes.since ? new Date(input.attributes.since) : null;
  const until = input.attributes.until ? new Date(input.attributes.until) : null;
  if (since && until && since.getTime() > until.getTime()) {
    throw invalidDateRange({ pointer: webhookPointers.since }, 'since must not be after until');
  }
  return withTransaction(ctx.db, async (tx) => {
    const endpoint = await ownedEndpoint({ ...ctx, db: tx }, input.id);
    if (!endpoint.enabled) throw webhookErrors.disabled(endpoint.id);
    const reopened = await reopenFailedDeliveries(tx, {
      endpointId: endpoint.id,
      since: since ?? undefined,
      until: until ?? undefined,
      now: wallClockNow(ctx),
    });
    if (reopened > 0) await notifyOutbox(tx);
    ctx.log.info({ webhookId: endpoint.id, since, until, reopened }, 'failed deliveries reopened');
    return { endpointId: endpoint.id, since, until, reopened };
  });
}
