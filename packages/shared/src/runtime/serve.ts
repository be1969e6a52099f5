import { type ServerType, serve } from '@hono/node-server';
import type { Logger } from '../logger';

type Closable = { name: string; close: () => Promise<unknown> | unknown };

/** Serves a fetch handler on a port; resolves once listening. */
export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  port: number,
  hostname = '0.0.0.0',
): Promise<{ server: ServerType; port: number }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, port, hostname }, (info) => resolve({ server, port: info.port }));
  });
}

export const closeServer = (server: ServerType) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
    (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
  });

/** Graceful shutdown on SIGTERM/SIGINT: stop accepting, finish in-flight work, close pools, in order. */
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
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
