import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A TCP port free on loopback right now (for a process the test starts). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Sends `signal` to a child process and resolves once it has exited (at once if it already has). */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** Spawns child processes and remembers the live ones, so a test file can kill whatever is left at the end. */
export function processTracker() {
  const children = new Set<ChildProcess>();
  return {
    spawn(command: string, args: string[], env: Record<string, string> = {}): ChildProcess {
      const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
      children.add(child);
      child.once('exit', () => children.delete(child));
      return child;
    },
    killAll: () => Promise.all([...children].map((child) => stopProcess(child, 'SIGKILL'))),
  };
}
