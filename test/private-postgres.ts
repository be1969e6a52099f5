import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes';

const run = promisify(execFile);
const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL cluster of a test's own (initdb in a temporary directory, its own port), so a fault test can stop and
 * restart a real server without touching the shared one. As root the server runs as the `postgres` user, as
 * PostgreSQL refuses to run as root.
 */
export async function createPrivatePostgres() {
  const dir = await mkdtemp(join(tmpdir(), 'pps-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  let owner: { uid: number; gid: number } | undefined;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    owner = { uid: Number(stdout.trim()), gid: Number(gid.trim()) };
    await chown(dir, owner.uid, owner.gid);
  }
  await chmod(dir, 0o700);
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(BIN, tool), ...args]) : run(join(BIN, tool), args);
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=100',
  ].join(' ');
  const ctl = (...args: string[]) => pg('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', ...args]);
  return {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => ctl('start'),
    /** As an operator's routine restart: `-m fast` ends every session, then the server starts again. */
    restart: () => ctl('restart', '-m', 'fast'),
    stop: (mode: 'fast' | 'immediate' = 'fast') => ctl('stop', '-m', mode),
    destroy: async () => {
      await ctl('stop', '-m', 'immediate').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type PrivatePostgres = Awaited<ReturnType<typeof createPrivatePostgres>>;
