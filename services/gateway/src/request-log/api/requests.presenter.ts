import type { schema } from '@pps/shared/db';
import { absoluteUrl } from '@pps/shared/http';
import type { ListedRequest } from '../model/request-log.repository';

/** A request as lists show it: what was asked and answered, without the bodies. */
export const requestSummary = (baseUrl: string, row: ListedRequest) => ({
  type: 'requests' as const,
  id: row.id,
  links: { self: absoluteUrl(baseUrl, `/requests/${row.id}`) },
  attributes: {
    method: row.method,
    path: row.path,
    status: row.status,
    requestId: row.clientRequestId ?? row.id,
    idempotencyKey: row.idempotencyKey,
    durationMs: row.durationMs,
    createdAt: row.createdAt.toISOString(),
  },
});

/** `GET /requests/{id}`: the request with its bodies, as the log keeps them (redacted, cut). */
export function requestDocument(baseUrl: string, row: schema.RequestLogRow) {
  const { links, ...summary } = requestSummary(baseUrl, row);
  return {
    links,
    data: {
      ...summary,
      attributes: {
        ...summary.attributes,
        requestBody: row.requestBody,
        requestBodyTruncated: row.requestBodyTruncated,
        responseBody: row.responseBody,
        responseBodyTruncated: row.responseBodyTruncated,
      },
    },
  };
}
