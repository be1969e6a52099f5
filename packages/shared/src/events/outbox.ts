import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db';
import { events } from '../db/schema';
import { newId } from '../ids';

export const eventTypes = [
  'payment.created',
  'payment.completed',
  'payment.failed',
  'payment.voided',
  'payment.refunded',
  'payment.partially_refunded',
  'merchant.created',
  'merchant.updated',
  'merchant.status_changed',
  'webhook.test',
] as const;
export type EventType = (typeof eventTypes)[number];

export type ResourceData = { type: string; id: string; attributes: Record<string, unknown> };

export type WriteEventInput = {
  accountId: string;
  type: EventType;
  /** The resource's `data` exactly as GET returns it. */
  resource: ResourceData;
  previousStatus: string | null;
  requestId?: string | null;
  /** Event timestamps use real time, not the sandbox clock (DESIGN §12). */
  now?: Date;
};

/**
 * Writes an event into the outbox. Call it with the transaction that makes the state change, so the
 * event exists exactly when the change does. `sequence` grows per resource so receivers can order.
 */
export async function writeEvent(tx: DbOrTx, input: WriteEventInput): Promise<{ id: string; sequence: number }> {
  const id = newId('event');
  const now = input.now ?? new Date();
  // Serialise writers of one resource so sequences never collide (the lock ends with the transaction).
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${input.resource.id}, 0))`);
  const [row] = await tx
    .select({ last: sql<number>`coalesce(max(${events.sequence}), 0)::int` })
    .from(events)
    .where(and(eq(events.resourceId, input.resource.id), eq(events.accountId, input.accountId)));
  const sequence = (row?.last ?? 0) + 1;
  const payload = {
    type: input.type,
    timestamp: now.toISOString(),
    data: { ...input.resource, previousStatus: input.previousStatus, sequence },
  };
  await tx.insert(events).values({
    id,
    accountId: input.accountId,
    type: input.type,
    resourceType: input.resource.type,
    resourceId: input.resource.id,
    sequence,
    payload,
    requestId: input.requestId ?? null,
    createdAt: now,
  });
  return { id, sequence };
}
