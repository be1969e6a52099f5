import { sql } from 'drizzle-orm';
import { type DbOrTx, textArray } from '../db';
import { eventSequences, events } from '../db/schema';
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

/** The PostgreSQL channel the outbox relay listens on. */
export const OUTBOX_CHANNEL = 'pps_outbox';

export type ResourceData = { type: string; id: string; attributes: Record<string, unknown> };

export type WriteEventInput = {
  accountId: string;
  type: EventType;
  /** The resource's `data` exactly as GET returns it. */
  resource: ResourceData;
  previousStatus: string | null;
  requestId?: string | null;
  /** Event timestamps use real time, not the sandbox clock (docs/design.md). */
  now?: Date;
};

/**
 * Writes an event into the outbox. Call it with the transaction that makes the state change, so the
 * event exists exactly when the change does. `sequence` grows per resource so receivers can order.
 */
export async function writeEvent(tx: DbOrTx, input: WriteEventInput): Promise<{ id: string; sequence: number }> {
  const [written] = await writeEvents(tx, [input]);
  return written!;
}

/**
 * Writes many events in two statements whatever their number (settlement batches): one upsert of the
 * resources' sequence counters, one INSERT of the rows.
 */
export async function writeEvents(tx: DbOrTx, inputs: WriteEventInput[]): Promise<{ id: string; sequence: number }[]> {
  if (inputs.length === 0) return [];
  // One upsert claims the sequences of every resource (sorted, so two batches lock counters in the same
  // order); the counter row stays locked until commit, serialising the writers of each resource.
  const counts = new Map<string, number>();
  for (const input of inputs) counts.set(input.resource.id, (counts.get(input.resource.id) ?? 0) + 1);
  const resourceIds = [...counts.keys()].sort();
  const claimed = await tx.execute<{ resource_id: string; last_sequence: number }>(sql`
    insert into ${eventSequences} (resource_id, last_sequence)
    select resource_id, n::int from unnest(${textArray(resourceIds)}, ${textArray(resourceIds.map((id) => counts.get(id)!))})
      as claim(resource_id, n)
    on conflict (resource_id) do update set last_sequence = ${eventSequences}.last_sequence + excluded.last_sequence
    returning resource_id, last_sequence`);
  // The first sequence of this write, per resource: the claimed last one minus what this write takes.
  const next = new Map<string, number>();
  for (const row of claimed) next.set(row.resource_id, row.last_sequence - counts.get(row.resource_id)! + 1);

  const written = inputs.map((input) => {
    const sequence = next.get(input.resource.id)!;
    next.set(input.resource.id, sequence + 1);
    const now = input.now ?? new Date();
    const payload = {
      type: input.type,
      timestamp: now.toISOString(),
      data: { ...input.resource, previousStatus: input.previousStatus, sequence },
    };
    return { id: newId('event'), sequence, input, payload, now };
  });
  // The relay LISTENs on pps_outbox: the notification goes out when this transaction commits (same round trip).
  await tx.execute(sql`
    with inserted as (
    insert into ${events} (id, account_id, type, resource_type, resource_id, sequence, payload, request_id, created_at)
    select id, account_id, type, resource_type, resource_id, sequence::int, payload::jsonb, request_id, created_at::timestamptz
    from unnest(
      ${textArray(written.map((row) => row.id))}, ${textArray(written.map((row) => row.input.accountId))},
      ${textArray(written.map((row) => row.input.type))}, ${textArray(written.map((row) => row.input.resource.type))},
      ${textArray(written.map((row) => row.input.resource.id))}, ${textArray(written.map((row) => row.sequence))},
      ${textArray(written.map((row) => JSON.stringify(row.payload)))},
      ${textArray(written.map((row) => row.input.requestId ?? null))},
      ${textArray(written.map((row) => row.now.toISOString()))}
    ) as event(id, account_id, type, resource_type, resource_id, sequence, payload, request_id, created_at)
    returning 1)
    select pg_notify(${OUTBOX_CHANNEL}, '') from (select count(*) from inserted) as done`);
  return written.map(({ id, sequence }) => ({ id, sequence }));
}
