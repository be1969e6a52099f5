import { sql } from 'drizzle-orm';
import { type DbOrTx, textArray } from '../db';
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
  const [written] = await writeEvents(tx, [input]);
  return written!;
}

/**
 * Writes many events in three statements whatever their number (settlement batches): the writers of each
 * resource are serialised by a transaction-scoped advisory lock (taken in a fixed order, so two batches never
 * deadlock), sequences continue from each resource's last one, and the rows go in one INSERT.
 */
export async function writeEvents(tx: DbOrTx, inputs: WriteEventInput[]): Promise<{ id: string; sequence: number }[]> {
  if (inputs.length === 0) return [];
  const resourceIds = [...new Set(inputs.map((input) => input.resource.id))].sort();
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(id, 0)) from unnest(${textArray(resourceIds)}) as id order by id`,
  );
  const last = new Map<string, number>();
  const rows = await tx.execute<{ resource_id: string; account_id: string; last: number }>(sql`
    select resource_id, account_id, max(sequence)::int as last from ${events}
    where resource_id = any(${textArray(resourceIds)}) group by resource_id, account_id`);
  for (const row of rows) last.set(`${row.account_id}|${row.resource_id}`, row.last);

  const written = inputs.map((input) => {
    const key = `${input.accountId}|${input.resource.id}`;
    const sequence = (last.get(key) ?? 0) + 1;
    last.set(key, sequence);
    const now = input.now ?? new Date();
    const payload = {
      type: input.type,
      timestamp: now.toISOString(),
      data: { ...input.resource, previousStatus: input.previousStatus, sequence },
    };
    return { id: newId('event'), sequence, input, payload, now };
  });
  await tx.execute(sql`
    insert into ${events} (id, account_id, type, resource_type, resource_id, sequence, payload, request_id, created_at)
    select id, account_id, type, resource_type, resource_id, sequence::int, payload::jsonb, request_id, created_at::timestamptz
    from unnest(
      ${textArray(written.map((row) => row.id))}, ${textArray(written.map((row) => row.input.accountId))},
      ${textArray(written.map((row) => row.input.type))}, ${textArray(written.map((row) => row.input.resource.type))},
      ${textArray(written.map((row) => row.input.resource.id))}, ${textArray(written.map((row) => row.sequence))},
      ${textArray(written.map((row) => JSON.stringify(row.payload)))},
      ${textArray(written.map((row) => row.input.requestId ?? null))},
      ${textArray(written.map((row) => row.now.toISOString()))}
    ) as event(id, account_id, type, resource_type, resource_id, sequence, payload, request_id, created_at)`);
  return written.map(({ id, sequence }) => ({ id, sequence }));
}
