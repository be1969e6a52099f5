import { changesSince, type Resource, type VersionChange, type VersionedRequest } from './changes';
import { type ApiVersion, NEWEST_VERSION } from './versions';

const isResource = (value: unknown): value is Resource =>
  typeof value === 'object' && value !== null && typeof (value as Resource).type === 'string';

type EventPayload = { type?: string; data?: unknown };

/** A resource through each change's `resource`; an event's payload rendered too (the events API). */
function renderResource(resource: Resource, changes: readonly VersionChange[]): Resource {
  let rendered = resource;
  for (const change of changes) rendered = change.resource?.(rendered) ?? rendered;
  if (rendered.type === 'events' && rendered.attributes && 'payload' in rendered.attributes) {
    const payload = renderPayload(rendered.attributes.payload as EventPayload, changes);
    if (payload !== rendered.attributes.payload)
      rendered = { ...rendered, attributes: { ...rendered.attributes, payload } };
  }
  return rendered;
}

function renderPayload(payload: EventPayload, changes: readonly VersionChange[]): EventPayload {
  if (!isResource(payload?.data)) return payload;
  const data = renderResource(payload.data, changes);
  return data === payload.data ? payload : { ...payload, data };
}

/**
 * A newest-version answer (the parsed JSON of a 2xx) in an older version: each change's `response`, newest change
 * first, then each resource of it (`data`, one or a list's, and `included`) through every change's `resource`. The
 * very same value when no change touched it.
 */
export function renderAnswer(body: unknown, changes: readonly VersionChange[], request: VersionedRequest): unknown {
  let rendered = body;
  for (const change of changes) rendered = change.response?.(rendered, request) ?? rendered;
  if (typeof rendered !== 'object' || rendered === null || !changes.some((change) => change.resource)) return rendered;
  const document = rendered as { data?: unknown; included?: unknown };
  const each = (value: unknown) => (isResource(value) ? renderResource(value, changes) : value);
  const list = (values: unknown[]) => {
    const mapped = values.map(each);
    return mapped.every((value, index) => value === values[index]) ? values : mapped;
  };
  const data = Array.isArray(document.data) ? list(document.data) : each(document.data);
  const included = Array.isArray(document.included) ? list(document.included) : document.included;
  if (data === document.data && included === document.included) return rendered;
  return { ...document, ...('data' in document ? { data } : {}), ...(included !== undefined ? { included } : {}) };
}

/**
 * An event's payload as its stored text (the newest shape) in `version`: the same text for the newest, so a
 * delivery in it is sent byte for byte as stored; else parsed, its resource rendered, and written out again.
 */
export function renderEventPayloadText(text: string, version: ApiVersion = NEWEST_VERSION): string {
  const changes = changesSince(version).filter((change) => change.resource);
  if (changes.length === 0) return text;
  const payload = JSON.parse(text) as EventPayload;
  const rendered = renderPayload(payload, changes);
  return rendered === payload ? text : JSON.stringify(rendered);
}
