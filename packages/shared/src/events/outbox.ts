import { type DbOrTx, jsonArray, texts } from '../db';
import { mapSent, type Part, rowMapper, send } from '../db/prepared-statements';
import { events } from '../db/schema';
import type { Sent } from '../db/types';
import { newId } from '../ids';

export const eventTypes = [
  'payment.created',
  'payment.authorized',
  'payment.captured',
  'payment.completed',
  'payment.failed',
  'payment.voided',
  'payment.refunded',
  'payment.partially_refunded',
  'payment.requires_action',
  'merchant.created',
  'merchant.updated',
  'merchant.status_changed',
  'payout.created',
  'payout.paid',
  'payout.failed',
  'dispute.created',
  'dispute.funds_withdrawn',
  'dispute.updated',
  'dispute.closed',
  'dispute.funds_reinstated',
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

// Per resource, the sequence counter is claimed for as many events as this write makes ($1 the resource ids,
// sorted, $2 how many each), and the rows go in with their sequences and into the relay's queue, in one statement.
// The relay is notified by the table's trigger (migration 0007), at commit.
const INSERT_EVENTS = `
  with claim as (
    insert into event_sequences (resource_id, last_sequence)
    select resource_id, n::int from unnest($1::text[], $2::text[]) as claim(resource_id, n)
    on conflict (resource_id) do update set last_sequence = event_sequences.last_sequence + excluded.last_sequence
    returning resource_id, last_sequence),
  event as (
    select event.*, document.payload, claim.last_sequence - taken.n::int + event.ordinal::int as sequence
    from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $10::text[], $11::text[])
      with ordinality as event(id, account_id, type, resource_type, resource_id, ordinal, request_id, created_at, k)
    join jsonb_array_elements($9::text::jsonb) with ordinality as document(payload, k) using (k)
    join claim using (resource_id)
    join unnest($1::text[], $2::text[]) as taken(resource_id, n) using (resource_id)),
  inserted as (
    insert into events (id, account_id, type, resource_type, resource_id, sequence, payload, request_id, created_at)
    select id, account_id, type, resource_type, resource_id, sequence,
      jsonb_set(payload, '{data,sequence}', to_jsonb(sequence)), request_id, created_at::timestamptz
    from event
    returning id, sequence),
  queued as (insert into unrelayed_events (event_id) select id from inserted)
  select id, sequence from inserted`;
const writtenEvent = rowMapper({ id: events.id, sequence: events.sequence });

/**
 * Writes many events in one statement whatever their number (settlement batches). Counters are claimed in sorted
 * order, so two batches lock them in the same order; a counter row stays locked until commit, serialising the
 * writers of each resource.
 */
export async function writeEvents(tx: DbOrTx, inputs: WriteEventInput[]): Promise<{ id: string; sequence: number }[]> {
  return inputs.length === 0 ? [] : sendEvents(tx, inputs);
}

/**
 * `writeEvents`, sent at once and not awaited (a transaction's last writes go out together, with its COMMIT behind
 * them: `pipelinedTransaction`'s `pending`). It needs its own statement: the sequence counter is claimed by a
 * data-modifying CTE, which cannot be one of `sendTogether`'s parts.
 */
export function sendEvents(tx: DbOrTx, inputs: WriteEventInput[]): Sent<{ id: string; sequence: number }[]> {
  // Per resource: how many sequences this write takes, and each event's place among them.
  const taken = new Map<string, number>();
  const rows = inputs.map((input) => {
    const ordinal = (taken.get(input.resource.id) ?? 0) + 1;
    taken.set(input.resource.id, ordinal);
    // `sequence` is set by the statement, once the counter is claimed.
    return { ...eventRow(input, 0), ordinal };
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
    jsonArray(rows.map((row) => row.payload)),
    texts(rows.map((row) => row.input.requestId ?? null)),
    texts(rows.map((row) => row.now.toISOString())),
  ]);
  return mapSent(written, (found) => {
    const sequences = new Map(found.map(writtenEvent).map((row) => [row.id, row.sequence]));
    return rows.map(({ id }) => ({ id, sequence: sequences.get(id)! }));
  });
}

const FIRST_SEQUENCES = `insert into event_sequences (resource_id, last_sequence)
  select resource_id, 1 from unnest($1::text[]) as first(resource_id)`;
const QUEUE = 'insert into unrelayed_events (event_id) select event_id from unnest($1::text[]) as queued(event_id)';
const INSERT_FIRST_EVENTS = `
  insert into events (id, account_id, type, resource_type, resource_id, sequence, payload, request_id, created_at)
  select id, account_id, type, resource_type, resource_id, 1, payload, request_id, created_at::timestamptz
  from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $7::text[], $8::text[]) with ordinality
    as event(id, account_id, type, resource_type, resource_id, request_id, created_at, n)
  join jsonb_array_elements($6::text::jsonb) with ordinality as document(payload, n) using (n)`;

/**
 * The first events of resources made in this transaction (new payments, one each), as writes to send with others
 * (`sendTogether`), one statement per table whatever their number (group commit): each sequence is 1 and its
 * counter starts there; each is queued for the relay. A resource that already has events goes through
 * `writeEvents`, which claims the counter.
 */
export function firstEventsParts(inputs: WriteEventInput[]): Part[] {
  if (inputs.length === 0) return [];
  const rows = inputs.map((input) => eventRow(input, 1));
  return [
    { text: FIRST_SEQUENCES, params: [texts(inputs.map((input) => input.resource.id))] },
    { text: QUEUE, params: [texts(rows.map((row) => row.id))] },
    {
      text: INSERT_FIRST_EVENTS,
      params: [
        texts(rows.map((row) => row.id)),
        texts(inputs.map((input) => input.accountId)),
        texts(inputs.map((input) => input.type)),
        texts(inputs.map((input) => input.resource.type)),
        texts(inputs.map((input) => input.resource.id)),
        jsonArray(rows.map((row) => row.payload)),
        texts(inputs.map((input) => input.requestId ?? null)),
        texts(rows.map((row) => row.now.toISOString())),
      ],
    },
  ];
}

/** An event's id, time and payload (the resource as GET shows it, its previous status and its sequence). */
function eventRow(input: WriteEventInput, sequence: number) {
  const now = input.now ?? new Date();
  const payload = {
    type: input.type,
    timestamp: now.toISOString(),
    data: { ...input.resource, previousStatus: input.previousStatus, sequence },
  };
  return { id: newId('event'), input, payload, now };
}
