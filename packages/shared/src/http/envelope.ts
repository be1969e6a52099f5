import type { Context } from 'hono';

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

export type PageMeta = { total: number; limit: number; offset: number; hasMore: boolean };

/** A list document: links {self, next}, data, meta {total, limit, offset, hasMore}. */
export function list<R>(
  c: Context,
  baseUrl: string,
  data: R[],
  page: { total: number; limit: number; offset: number },
) {
  const hasMore = page.offset + data.length < page.total;
  const self = requestUrl(c, baseUrl);
  let next: string | null = null;
  if (hasMore) {
    const url = new URL(self);
    url.searchParams.set('offset', String(page.offset + page.limit));
    url.searchParams.set('limit', String(page.limit));
    next = url.toString();
  }
  return {
    links: { self, next },
    data,
    meta: { total: page.total, limit: page.limit, offset: page.offset, hasMore } satisfies PageMeta,
  };
}
