import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createDatabaseFromTemplate } from '@pps/shared/testing';
import Redis from 'ioredis';
import { inject } from 'vitest';
import { freePort, stopProcess } from './processes';
import { waitFor } from './wait';

/** Variables a developer's shell may carry that would hide the development defaults these tests are about. */
const DEFAULTED = ['ADMIN_TOKEN', 'HOST', 'DEMO_ACCOUNT', 'WEB_CONCURRENCY', 'PUBLIC_BASE_URL'];

/**
 * `npm start`'s entry (scripts/start.ts) as a real process, as a developer runs it: development defaults, a fresh
 * database of its own cloned from the migrated template (so it creates the demo account and prints it), its own
 * ports and BullMQ prefix. Resolves once `ready(output)` holds; `stop` SIGTERMs it, then drops its database and keys.
 */
export async function startNpmStart(
  options: { env?: Record<string, string>; ready?: (output: string) => boolean; timeoutMs?: number } = {},
) {
  const database = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  const port = await freePort();
  const demoPort = await freePort();
  const queuePrefix = `{pps-start-${randomBytes(4).toString('hex')}}`;
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of DEFAULTED) delete env[name];
  Object.assign(env, {
    LOG_LEVEL: 'info',
    PORT: String(port),
    DEMO_PORT: String(demoPort),
    DATABASE_URL: database.url,
    QUEUE_PREFIX: queuePrefix,
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
    await dropQueues(queuePrefix);
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

/** Deletes the BullMQ keys of a prefix the process used (its queues, schedulers and jobs). */
async function dropQueues(prefix: string) {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
}

/** The JSON log lines a process printed (pino writes one object a line). */
export const logLines = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
