import { type DbOrTx, texts } from '../db';
import { alreadySent, mapSent, type Sent, send } from '../db/raw';
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
  const [written] = await sendEvents(tx, [input]);
  return written!;
}

/** Many events in one statement whatever their number (settlement batches). */
export async function writeEvents(tx: DbOrTx, inputs: WriteEventInput[]): Promise<{ id: string; sequence: number }[]> {
  return sendEvents(tx, inputs);
}

// Per resource, the sequence counter is claimed for as many events as this write makes ($1 the resource ids,
// sorted, $2 how many each); the rows go in with their sequences, and the relay is notified, in one statement.
const INSERT_EVENTS = `
  with claim as (
    insert into event_sequences (resource_id, last_sequence)
    select resource_id, n::int from unnest($1::text[], $2::text[]) as claim(resource_id, n)
    on conflict (resource_id) do update set last_sequence = event_sequences.last_sequence + excluded.last_sequence
    returning resource_id, last_sequence),
  event as (
    select event.*, claim.last_sequence - taken.n::int + event.ordinal::int as sequence
    from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
      $11::text[])
      as event(id, account_id, type, resource_type, resource_id, ordinal, payload, request_id, created_at)
    join claim using (resource_id)
    join unnest($1::text[], $2::text[]) as taken(resource_id, n) using (resource_id)),
  inserted as (
    insert into events (id, account_id, type, resource_type, resource_id, sequence, payload, request_id, created_at)
    select id, account_id, type, resource_type, resource_id, sequence,
      jsonb_set(payload::jsonb, '{data,sequence}', to_jsonb(sequence)), request_id, created_at::timestamptz
    from event
    returning id, sequence),
  notified as (select pg_notify('${OUTBOX_CHANNEL}', '') from (select count(*) from inserted) as done)
  select inserted.id, inserted.sequence from inserted, notified`;

/**
 * `writeEvents`, sent at once (`Sent`: later statements queue behind it). Counters are claimed in sorted order, so
 * two batches lock them in the same order; a counter row stays locked until commit, serialising the writers of
 * each resource. The relay LISTENs on pps_outbox: the notification goes out when this transaction commits.
 */
export function sendEvents(tx: DbOrTx, inputs: WriteEventInput[]): Sent<{ id: string; sequence: number }[]> {
  if (inputs.length === 0) return alreadySent([]);
  // Per resource: how many sequences this write takes, and each event's place among them.
  const taken = new Map<string, number>();
  const rows = inputs.map((input) => {
    const ordinal = (taken.get(input.resource.id) ?? 0) + 1;
    taken.set(input.resource.id, ordinal);
    const now = input.now ?? new Date();
    // `sequence` is set by the statement, once the counter is claimed.
    const payload = {
      type: input.type,
      timestamp: now.toISOString(),
      data: { ...input.resource, previousStatus: input.previousStatus, sequence: 0 },
    };
    return { id: newId('event'), input, ordinal, payload, now };
  });
  const resourceIds = [...taken.keys()].sort();
  const written = send(tx, INSERT_EVENTS, [
    texts(resourceIds),
    texts(resourceIds.map((id) => taken.get(id)!)),
    texts(rows.map((row) => row.id)),
    texts(rows.map((row) => row.input.accountId)),
    texts(rows.map((row) => row.input.type)),
    texts(rows.map((row) => row.input.resource.type)),
    texts(rows.map((row) => row.input.resource.id)),
    texts(rows.map((row) => row.ordinal)),
    texts(rows.map((row) => JSON.stringify(row.payload))),
    texts(rows.map((row) => row.input.requestId ?? null)),
    texts(rows.map((row) => row.now.toISOString())),
  ]);
  return mapSent(written, (inserted) => {
    const sequences = new Map(inserted.map((row) => [row.id as string, Number(row.sequence)]));
    return rows.map(({ id }) => ({ id, sequence: sequences.get(id)! }));
  });
}
