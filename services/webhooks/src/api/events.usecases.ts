import type { RedeliverInput } from '@pps/shared/contract';
import { type Travel, withTransaction } from '@pps/shared/db';
import { keysetOf, ownedBy, type PageQuery, type ServiceContext, wallClockNow } from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import {
  type DeliveryView,
  eventDeliveryPlace,
  listEventDeliveries,
  reopenDeliveries,
  withAttempts,
} from '../delivery/deliveries.repository';
import { type EventRow, eventPlace, findEvent, listEvents, notifyOutbox } from './events.repository';
import { webhookErrors, webhookPointers } from './webhooks.errors';
import { redeliveryTargets } from './webhooks.repository';
import { ownedEndpoint } from './webhooks.usecases';

/**
 * An event of the caller's account: 404 unknown (or not an event id), 403 another account's. `keep`: locked for the
 * caller's transaction (`findEvent`).
 */
async function ownedEvent(ctx: ServiceContext, id: string, options: { keep?: boolean } = {}): Promise<EventRow> {
  const event = isId('event', id) ? await findEvent(ctx.db, id, options) : undefined;
  return ownedBy(event, ctx, 'event', id);
}

export async function getEvent({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<EventRow> {
  return ownedEvent(ctx, input.id);
}

/**
 * GET /events/{id}/deliveries: the event's deliveries to the account's endpoints (those deleted since included),
 * newest first, each with its attempts.
 */
export async function listDeliveriesOfEvent({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: PageQuery & { id: string };
}): Promise<{ rows: DeliveryView[]; total: number; travel?: Travel }> {
  const event = await ownedEvent(ctx, input.id);
  const keyset = await keysetOf(input, (id) => eventDeliveryPlace(ctx.db, event.id, id));
  return listEventDeliveries(ctx.db, {
    eventId: event.id,
    eventType: event.type,
    limit: input.limit,
    offset: input.offset,
    keyset,
  });
}

/** GET /events: the account's events, newest first, filtered by type and resource. */
export async function listAccountEvents({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: PageQuery & { type?: string; resourceId?: string };
}): Promise<{ rows: EventRow[]; total: number; travel?: Travel }> {
  const keyset = await keysetOf(input, (id) => eventPlace(ctx.db, ctx.accountId, id));
  return listEvents(ctx.db, { accountId: ctx.accountId, ...input, keyset });
}

/**
 * POST /events/{id}/redeliver. With `endpointId` (an enabled endpoint of the account): that endpoint's delivery
 * of the event is reopened, or created. Without: every enabled, not deleted endpoint that has a delivery of the
 * event or is subscribed to its type. One transaction, which wakes the relay on commit.
 */
export async function redeliverEvent({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { id: string; attributes: RedeliverInput };
}): Promise<DeliveryView[]> {
  return withTransaction(ctx.db, async (tx) => {
    const txCtx = { ...ctx, db: tx };
    // Kept for the transaction: retention never removes an event a redelivery is being made of.
    const event = await ownedEvent(txCtx, input.id, { keep: true });
    let endpointIds: string[];
    if (input.attributes.endpointId !== undefined) {
      const pointer = webhookPointers.endpointId;
      const endpoint = await ownedEndpoint(txCtx, input.attributes.endpointId, { pointer });
      if (!endpoint.enabled) throw webhookErrors.disabled(endpoint.id, pointer);
      endpointIds = [endpoint.id];
    } else {
      endpointIds = await redeliveryTargets(tx, event);
    }
    const deliveries = await reopenDeliveries(tx, {
      accountId: event.accountId,
      eventId: event.id,
      endpointIds,
      now: wallClockNow(ctx),
    });
    if (deliveries.length > 0) await notifyOutbox(tx);
    ctx.log.info(
      { eventId: event.id, endpointIds, deliveryIds: deliveries.map((delivery) => delivery.id) },
      'event redelivery queued',
    );
    return withAttempts(
      tx,
      deliveries.map((delivery) => ({ delivery, eventType: event.type })),
    );
  });
}
