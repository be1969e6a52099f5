import { type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createAdaptorServer, type ServerType } from '@hono/node-server';
import { type Config, configSchema } from '../config';
import { newId } from '../ids';
import type { Logger } from '../logger';

type Closable = { name: string; close: () => Promise<unknown> | unknown };

/** The server's limits, as configured (README, Configuration; docs/decisions.md, Server limits). */
export type ServerLimits = Pick<
  Config,
  | 'HTTP_HEADERS_TIMEOUT_MS'
  | 'HTTP_REQUEST_TIMEOUT_MS'
  | 'HTTP_KEEP_ALIVE_TIMEOUT_MS'
  | 'HTTP_MAX_HEADER_SIZE'
  | 'SHUTDOWN_TIMEOUT_MS'
>;

/** The configuration's defaults, for callers that pass no limits (tests, benchmarks). */
export const DEFAULT_SERVER_LIMITS: ServerLimits = configSchema
  .pick({
    HTTP_HEADERS_TIMEOUT_MS: true,
    HTTP_REQUEST_TIMEOUT_MS: true,
    HTTP_KEEP_ALIVE_TIMEOUT_MS: true,
    HTTP_MAX_HEADER_SIZE: true,
    SHUTDOWN_TIMEOUT_MS: true,
  })
  .parse({});

type Drain = { draining: boolean; inFlight: Set<ServerResponse>; shutdownTimeoutMs: number };
const drains = new WeakMap<Server, Drain>();

/**
 * Serves a fetch handler on a port with deliberate limits; resolves once listening (rejects if it cannot listen).
 * `limits` takes the config itself (`listen(app.fetch, config.PORT, config.HOST, config)`); anything missing is the
 * configuration's default.
 *
 * - headers must arrive within HTTP_HEADERS_TIMEOUT_MS and the whole request within HTTP_REQUEST_TIMEOUT_MS, else
 *   408 and the connection is closed (slowloris). Node checks both every `connectionsCheckingInterval`, so that is a
 *   quarter of the headers timeout (at most 1 s) instead of Node's 30 s.
 * - an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS: longer than a load balancer's idle
 *   timeout (60 s on the usual ones), so the balancer, never this server, closes a connection it might reuse.
 * - request headers over HTTP_MAX_HEADER_SIZE bytes in total get 431.
 */
export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  port: number,
  hostname = '127.0.0.1',
  limits: Partial<ServerLimits> = {},
): Promise<{ server: Server; port: number }> {
  const headersTimeout = limits.HTTP_HEADERS_TIMEOUT_MS ?? DEFAULT_SERVER_LIMITS.HTTP_HEADERS_TIMEOUT_MS;
  const server = createAdaptorServer({
    fetch,
    serverOptions: {
      headersTimeout,
      requestTimeout: limits.HTTP_REQUEST_TIMEOUT_MS ?? DEFAULT_SERVER_LIMITS.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeout: limits.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? DEFAULT_SERVER_LIMITS.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxHeaderSize: limits.HTTP_MAX_HEADER_SIZE ?? DEFAULT_SERVER_LIMITS.HTTP_MAX_HEADER_SIZE,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
  }) as Server;

  const drain: Drain = {
    draining: false,
    inFlight: new Set(),
    shutdownTimeoutMs: limits.SHUTDOWN_TIMEOUT_MS ?? DEFAULT_SERVER_LIMITS.SHUTDOWN_TIMEOUT_MS,
  };
  drains.set(server, drain);
  // Before the app's listener: every request is tracked, and one that arrives during a drain (on a connection
  // opened before it) is answered with `Connection: close`.
  server.prependListener('request', (_request, response: ServerResponse) => {
    drain.inFlight.add(response);
    if (drain.draining) response.setHeader('connection', 'close');
    response.once('close', () => {
      drain.inFlight.delete(response);
      // A response whose headers had already gone out as keep-alive: its connection is idle now, so close it.
      if (drain.draining) server.closeIdleConnections();
    });
  });

  server.on('clientError', answerClientError);

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      server.off('error', reject);
      resolve({ server, port: (server.address() as AddressInfo).port });
    });
  });
}

/** What Node's parser refused before any route ran, as the API's own errors; everything else is a 400. */
const CLIENT_ERRORS: Record<string, { status: number; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers_too_large',
    detail: 'The request line and headers are larger than the server accepts',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'request_timeout',
    detail: 'The request did not arrive in time; send it again',
  },
};

/**
 * Node answers a request its parser refuses (431, 408, 400) with a bare status line; this sends the usual JSON:API
 * error document instead, then closes the connection (what follows on it cannot be trusted).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex) {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, code, detail } = CLIENT_ERRORS[error.code ?? ''] ?? {
    status: 400,
    code: 'malformed_request',
    detail: 'The request is not valid HTTP/1.1',
  };
  const title = STATUS_CODES[status] ?? 'Error';
  const body = JSON.stringify({
    errors: [{ status: String(status), code, title, detail }],
    meta: { requestId: newId('request') },
  });
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

/**
 * Drains a server from `listen()`: stops accepting connections, closes idle keep-alive connections at once, lets
 * requests in flight finish (their responses, and any that arrive on an open connection meanwhile, carry
 * `Connection: close`), and resolves once every connection is closed. After `timeoutMs` (SHUTDOWN_TIMEOUT_MS by
 * default) the connections still open are closed forcibly; `forced` counts the requests cut off that way.
 */
export function closeServer(
  server: ServerType,
  options: { timeoutMs?: number; log?: Logger } = {},
): Promise<{ forced: number }> {
  const http = server as Server;
  const drain = drains.get(http);
  const timeoutMs = options.timeoutMs ?? drain?.shutdownTimeoutMs ?? DEFAULT_SERVER_LIMITS.SHUTDOWN_TIMEOUT_MS;
  if (drain) {
    drain.draining = true;
    for (const response of drain.inFlight) if (!response.headersSent) response.setHeader('connection', 'close');
  }
  return new Promise((resolve) => {
    let forced = 0;
    const deadline = setTimeout(() => {
      forced = drain?.inFlight.size ?? 0;
      options.log?.warn({ requests: forced, timeoutMs }, 'shutdown deadline reached: closing connections forcibly');
      http.closeAllConnections();
    }, timeoutMs);
    http.close(() => {
      clearTimeout(deadline);
      resolve({ forced });
    });
    // Node 19+ does this in close() too; idle keep-alive connections would otherwise hold close() open.
    http.closeIdleConnections();
  });
}

/**
 * Graceful shutdown on SIGTERM/SIGINT: stop accepting, finish in-flight work, close pools, in order; then exit 0,
 * also when the HTTP drain hit its deadline (that is logged as a warning): the process did stop as asked.
 */
export function onShutdown(log: Logger, resources: Closable[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    for (const resource of resources) {
      try {
        await resource.close();
      } catch (error) {
        log.error({ err: error, resource: resource.name }, 'error while closing');
      }
    }
    log.info('stopped');
    exitAfterLogs(log, 0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/**
 * Exits once the log lines written so far have reached stdout, or after a second if the stream never says so.
 * pino writes asynchronously (`pino.destination`): on `process.exit` it writes what is still buffered, but not a
 * line whose write is under way, so a worker's `stopped` logged just before its exit was lost, under load.
 */
export function exitAfterLogs(log: Logger, code: number): void {
  const fallback = setTimeout(() => process.exit(code), 1000);
  log.flush(() => {
    clearTimeout(fallback);
    process.exit(code);
  });
}
