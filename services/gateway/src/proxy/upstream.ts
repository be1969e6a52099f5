/** Where the gateway sends a service's requests: its Hono app in this process, or its URL over HTTP. */
export type Upstream = { name: string; fetch: (request: Request) => Promise<Response> };

export const inProcessUpstream = (
  name: string,
  app: { fetch: (request: Request) => Response | Promise<Response> },
): Upstream => ({
  name,
  fetch: async (request) => app.fetch(request),
});

/** Over HTTP: Node's fetch keeps connections alive between calls. */
export const httpUpstream = (name: string, baseUrl: string): Upstream => {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    name,
    fetch: (request) => {
      const url = new URL(request.url);
      return fetch(`${base}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        // @ts-expect-error Node's fetch needs duplex for a streamed request body.
        duplex: 'half',
      });
    },
  };
};
