import type { FC } from 'hono/jsx';
import { when } from './format';
import { Table } from './table';

/** A delivery as `GET /events/{id}/deliveries` shows it (the fields this table reads). */
export type EventDelivery = {
  id: string;
  attributes: {
    endpointId: string;
    eventId: string;
    eventType: string;
    status: string;
    attempts: number;
    lastStatusCode: number | null;
    updatedAt: string;
  };
};

/** An event and its deliveries, newest first. */
export type DeliveriesOfEvent = { eventId: string; eventType: string; deliveries: EventDelivery[] };

/**
 * The deliveries of a resource's events, event by event: the endpoint's URL as text, linked to the endpoint's page
 * (a deleted endpoint by its id, without a link: its page is gone), the delivery's status, attempts and last answer.
 */
export const EventDeliveries: FC<{ events: DeliveriesOfEvent[]; urls: Map<string, string>; caption: string }> = ({
  events,
  urls,
  caption,
}) => (
  <Table
    caption={caption}
    headers={['Event', 'Endpoint', 'Status', 'Attempts', 'Last response', 'Updated']}
    empty="No delivery: no webhook endpoint received these events."
    rows={events.flatMap(({ eventId, eventType, deliveries }) =>
      deliveries.map(({ attributes: a }) => {
        const url = urls.get(a.endpointId);
        return [
          `${eventType} · ${eventId}`,
          url === undefined ? `${a.endpointId} (deleted)` : <a href={`/console/webhooks/${a.endpointId}`}>{url}</a>,
          <span class={`status ${a.status}`}>{a.status}</span>,
          String(a.attempts),
          a.lastStatusCode === null ? (a.attempts > 0 ? 'no answer' : '—') : String(a.lastStatusCode),
          when(a.updatedAt),
        ];
      }),
    )}
  />
);
