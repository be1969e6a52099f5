import type { Context } from 'hono';
import type { Travel } from '../db/keyset';

export type ResourceObject<T extends string = string, A = Record<string, unknown>> = {
  type: T;
  id: string;
  attributes: A;
};

/** Absolute URL under PUBLIC_BASE_URL. */
export const absoluteUrl = (baseUrl: string, path: string) => `${baseUrl}${path.startsWith('/') ? path : `/${path}`}`;

/** The request's own URL (path and query) under the public base URL: `links.self` of lists. */
export function requestUrl(c: Context, baseUrl: string): string {
  const url = new URL(c.req.url);
  return absoluteUrl(baseUrl, url.pathname + url.search);
}

export const single = <R extends ResourceObject>(self: string, data: R) => ({ links: { self }, data });

export type PageMeta = { total: number; limit: number; offset: number; hasMore: boolean; totalCapped?: true };

/**
 * What a list page knows: its filter's total, the limit and offset asked, and, read from a cursor, its travel.
 * `totalCapped`: the total was counted only up to a bound, and more items match than it says.
 */
export type Page = { total: number; totalCapped?: boolean; limit: number; offset: number; travel?: Travel };

/**
 * A list document: links {self, next}, data, meta {total, limit, offset, hasMore}, and `totalCapped: true` when the
 * total stopped at its bound. `hasMore`: read from a cursor, whether more items lie beyond the page in its
 * direction of travel; else whether the total goes past it (a capped total always does: it is counted at least to
 * the page's end).
 * `links.next` goes on from the page's last item (`startingAfter`), or toward newer items from its first
 * (`endingBefore`) when the page went that way, never by offset: following it never reads the pages before.
 */
export function list<R extends { id: string }>(c: Context, baseUrl: string, data: R[], page: Page) {
  const hasMore = page.travel
    ? page.travel.hasMore
    : page.totalCapped === true || page.offset + data.length < page.total;
  const self = requestUrl(c, baseUrl);
  const first = data[0];
  const last = data[data.length - 1];
  let next: string | null = null;
  if (hasMore && first && last) {
    const url = new URL(self);
    for (const name of ['offset', 'startingAfter', 'endingBefore']) url.searchParams.delete(name);
    if (page.travel?.toward === 'newer') url.searchParams.set('endingBefore', first.id);
    else url.searchParams.set('startingAfter', last.id);
    url.searchParams.set('limit', String(page.limit));
    next = url.toString();
  }
  return {
    links: { self, next },
    data,
    meta: {
      total: page.total,
      limit: page.limit,
      offset: page.offset,
      hasMore,
      ...(page.totalCapped ? { totalCapped: true as const } : {}),
    } satisfies PageMeta,
  };
}
