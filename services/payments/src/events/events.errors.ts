import { ApiError } from '@pps/shared/http';

export const eventErrors = {
  notFound: (id: string) => new ApiError({ status: 404, code: 'event_not_found', detail: `No event ${id}` }),
  forbidden: (id: string) =>
    new ApiError({ status: 403, code: 'event_forbidden', detail: `Event ${id} belongs to another account` }),
};
