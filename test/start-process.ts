import { type ChildProcess, spawn } from 'node:child_process';
import { createDatabaseFromTemplate, queuePrefix } from '@pps/shared/testing';
import { inject } from 'vitest';
import { freePort, stopProcess } from './processes';
import { waitFor } from './wait';

/** Variables a developer's shell may carry that would hide the development defaults these tests are about. */
const DEFAULTED = ['ADMIN_TOKEN', 'HOST', 'DEMO_ACCOUNT', 'WEB_CONCURRENCY', 'PUBLIC_BASE_URL'];

/**
 * `npm start`'s entry (scripts/start.ts) as a real process, as a developer runs it: development defaults, a fresh
 * database of its own cloned from the migrated template (so it creates the demo account and prints it), its own
 * ports and BullMQ prefix. Resolves once `ready(output)` holds; `stop` SIGTERMs it, then drops its database (its keys
 * go with the run's: test/global-setup.ts).
 */
export async function startNpmStart(
  options: { env?: Record<string, string>; ready?: (output: string) => boolean; timeoutMs?: number } = {},
) {
  const database = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  const port = await freePort();
  const demoPort = await freePort();
  const prefix = queuePrefix('start', inject('runId'));
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of DEFAULTED) delete env[name];
  Object.assign(env, {
    LOG_LEVEL: 'info',
    PORT: String(port),
    DEMO_PORT: String(demoPort),
    DATABASE_URL: database.url,
    QUEUE_PREFIX: prefix,
    ...options.env,
  });
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const stop = async () => {
    await stopProcess(child);
    await database.drop();
  };
  // The demo shop is the last thing it starts: once it is announced, every port is listening.
  const ready = options.ready ?? ((text: string) => text.includes('Demo shop (embedded checkout):'));
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
        return ready(output);
      },
      { timeoutMs: options.timeoutMs ?? 45_000, what: 'npm start' },
    );
  } catch (error) {
    await stop();
    throw new Error(`npm start did not come up (${(error as Error).message}):\n${output}`);
  }
  return { child, port, demoPort, output: () => output, stop };
}

/** The JSON log lines a process printed (pino writes one object a line). */
export const logLines = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
