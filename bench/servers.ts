import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort, isAlive, queuePrefix, removeQueueKeys, stopProcess, testRedisUrl } from '@pps/shared/testing';

/** A server the bench started: where to load it, and the processes whose memory is sampled. */
export type Target = {
  base: string;
  processes: ChildProcess[];
  /** More processes to sample (a cluster's workers). */
  pids?: number[];
};

const started: ChildProcess[] = [];

/** The flags `npm start` gives node (package.json; the image's NODE_OPTIONS are the same): every server here has them. */
export const NODE_FLAGS: string[] = JSON.parse(readFileSync('package.json', 'utf8'))
  .scripts.start.split(' ')
  .filter((word: string) => word.startsWith('--'));

/**
 * Starts `node <NODE_FLAGS> <args>` on a free loopback port (in `portVariable`) and resolves once `readyPath`
 * answers. The access log is written, as in production, and thrown away: its cost is part of every figure.
 */
export async function startServer(
  args: string[],
  env: Record<string, string>,
  options: { portVariable?: string; readyPath?: string } = {},
): Promise<Target> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, ...args], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      ...env,
      [options.portVariable ?? 'PORT']: String(port),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  started.push(child);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}${options.readyPath ?? '/healthz'}`);
  return { base, processes: [child] };
}

async function waitFor(url: string, deadline = Date.now() + 30_000) {
  while (Date.now() < deadline) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${url} did not come up`);
}

/** Stops the given processes (SIGTERM, waiting for each), or every server the bench started and its Redis keys. */
export async function stopAll(processes?: ChildProcess[]) {
  await Promise.all((processes ?? started).map((child) => stopProcess(child)));
  if (!processes) await removeBenchKeys();
}

const RUN_ID = String(process.pid);

/** A QUEUE_PREFIX of this bench run (`queuePrefix`, the run being this process): `removeBenchKeys` deletes its keys. */
export const benchQueuePrefix = (kind: string) => queuePrefix(kind, RUN_ID);

/** Deletes the Redis keys of this run's queue prefixes (its servers stopped), and of runs whose process is gone. */
export const removeBenchKeys = () => removeQueueKeys(testRedisUrl(), (run) => run === RUN_ID || !isAlive(Number(run)));
