import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../testing';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Runs `body` in a process of its own with the handler on: its exit code and what it wrote. */
function runWithHandler(body: string): Promise<{ code: number; output: string }> {
  const script = `
    import { onUnhandledRejection } from ${JSON.stringify(here('./unhandled.ts'))};
    import { createLogger } from ${JSON.stringify(here('../logger/index.ts'))};
    import { Redis } from 'ioredis';
    onUnhandledRejection(createLogger({ level: 'info', name: 'test' }));
    ${body}
    setTimeout(() => { console.log('still running'); process.exit(0); }, 1500);
  `;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

describe('an unhandled rejection', () => {
  it('from a Redis command while Redis is away is logged, and the process goes on', async () => {
    const port = await freePort();
    const { code, output } = await runWithHandler(`
      const redis = new Redis({ port: ${port}, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
      redis.on('error', () => {});
      void redis.get('unwatched');
    `);
    expect(output).toContain('MaxRetriesPerRequestError');
    expect(output).toContain('a Redis command failed with no one to answer (Redis away); going on');
    expect(output).toContain('still running');
    expect(code).toBe(0);
  }, 30_000);

  it('of anything else is logged and ends the process, as Node would', async () => {
    const { code, output } = await runWithHandler(`void Promise.reject(new Error('a bug, not Redis'));`);
    expect(output).toContain('unhandled rejection; exiting');
    expect(output).toContain('a bug, not Redis');
    expect(output).not.toContain('still running');
    expect(code).toBe(1);
  }, 30_000);
});
