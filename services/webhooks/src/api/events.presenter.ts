import { absoluteUrl, single } from '@pps/shared/http';
import type { EventRow } from './events.repository';

export const eventResource = (event: EventRow) => ({
  type: 'events' as const,
  id: event.id,
  attributes: {
    type: event.type,
    resourceType: event.resourceType,
    resourceId: event.resourceId,
    sequence: event.sequence,
    payload: event.payload,
    createdAt: event.createdAt.toISOString(),
  },
});

export const eventDocument = (baseUrl: string, event: EventRow) =>
  single(absoluteUrl(baseUrl, `/events/${event.id}`), eventResource(event));
