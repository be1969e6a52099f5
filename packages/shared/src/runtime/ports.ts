import type { Server } from 'node:http';
import { createServer } from 'node:net';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { exitAfterLogs, listen } from './serve';

/** A port the operator chose, and the variable that chooses it: what to change when it is taken. */
export type NamedPort = { port: number; variable: string };

/**
 * `listen` on the process's own port (`listen(fetch, config.PORT, config.HOST, config)`), for a process's entry
 * point: a port already in use ends the process with one line naming the port and its variable, exit code 1, instead
 * of a stack trace. Any other failure to listen is thrown as it was.
 */
export async function listenOn(
  fetch: (request: Request) => Response | Promise<Response>,
  options: NamedPort & { config: Config; log: Logger },
): Promise<{ server: Server; port: number }> {
  try {
    return await listen(fetch, options.port, options.config.HOST, options.config);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return exitInUse(options, options.log);
  }
}

/**
 * Before a process starts others on these ports (`npm run start:apart`, the cluster's primary): the first one already
 * in use (0 is none) ends it as `listenOn` would, so the line is printed once rather than by each child.
 */
export async function refuseTakenPorts(ports: NamedPort[], host: string, log?: Logger): Promise<void> {
  for (const named of ports) {
    if (named.port !== 0 && (await inUse(named.port, host))) await exitInUse(named, log);
  }
}

/** The line that says so: `port 8080 is in use: set PORT to another port`. */
export const portInUse = ({ port, variable }: NamedPort) => `port ${port} is in use: set ${variable} to another port`;

/** Prints `portInUse` on stderr, then exits 1 once the log lines before it are out; never settles. */
function exitInUse(named: NamedPort, log?: Logger): Promise<never> {
  process.stderr.write(`${portInUse(named)}\n`);
  if (log) exitAfterLogs(log, 1);
  else process.exit(1);
  return new Promise(() => {});
}

/**
 * Whether something listens on `port` at `host`: a server opened there and closed at once finds out. Any other
 * failure (a port below 1024, a HOST not of this machine) is left to the process that listens, which says it.
 */
function inUse(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE'));
    probe.listen(port, host, () => probe.close(() => resolve(false)));
  });
}
