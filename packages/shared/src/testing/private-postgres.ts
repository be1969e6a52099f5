import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort } from './processes';
import { waitFor } from './wait';

const run = promisify(execFile);
const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL tool: as root, as the `postgres` user, since PostgreSQL refuses to run as root. */
const pg = (tool: string, args: string[]) =>
  asRoot ? run('runuser', ['-u', 'postgres', '--', join(BIN, tool), ...args]) : run(join(BIN, tool), args);

/** A temporary directory the server's user owns. */
async function ownedDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pps-pg-'));
  if (asRoot) {
    const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
      run('id', ['-u', 'postgres']),
      run('id', ['-g', 'postgres']),
    ]);
    await chown(dir, Number(uid.trim()), Number(gid.trim()));
  }
  await chmod(dir, 0o700);
  return dir;
}

/** `pg_ctl` for the data directory `data` in `dir`, the server started with `settings` on `port`. */
function server(dir: string, data: string, port: number, settings: string[]) {
  const options = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', ...settings.map((s) => `-c ${s}`)].join(
    ' ',
  );
  const ctl = (...args: string[]) =>
    pg('pg_ctl', ['-D', data, '-l', join(dir, `log-${port}`), '-o', options, '-w', ...args]);
  return {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => ctl('start'),
    stop: (mode: 'fast' | 'immediate' = 'fast') => ctl('stop', '-m', mode),
    ctl,
  };
}

/** A test's cluster keeps nothing it need not: a crash of the machine is no fault a test makes. */
const TEST_SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=100'];

/**
 * A PostgreSQL cluster of a test's own (initdb in a temporary directory, its own port), so a fault test can stop and
 * restart a real server without touching the shared one. `settings` (`name=value`) replace the test settings (the
 * bench's cluster is as durable as a default install).
 */
export async function createPrivatePostgres(settings: string[] = TEST_SETTINGS) {
  const dir = await ownedDir();
  const data = join(dir, 'data');
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const node = server(dir, data, await freePort(), settings);
  return {
    port: node.port,
    url: node.url,
    /** The postmaster's process id (every server process of the cluster is its child), while it runs. */
    pid: async () => Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]),
    start: node.start,
    /** As an operator's routine restart: `-m fast` ends every session, then the server starts again. */
    restart: () => node.ctl('restart', '-m', 'fast'),
    stop: node.stop,
    destroy: async () => {
      await node.stop('immediate').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type PrivatePostgres = Awaited<ReturnType<typeof createPrivatePostgres>>;

/**
 * A primary with a SYNCHRONOUS streaming standby, of a test's own (`initdb`, then `pg_basebackup -R`): a commit
 * returns once the standby has it (`synchronous_standby_names`, `synchronous_commit=on`), so a promoted standby holds
 * every commit a client was told of. Both run; `url()` names both hosts, the primary first.
 */
export async function createReplicatedPostgres() {
  const dir = await ownedDir();
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const settings = ['max_connections=100', 'wal_level=replica', 'max_wal_senders=5', 'hot_standby=on', 'fsync=off'];
  const primaryData = join(dir, 'primary');
  await pg('initdb', ['-D', primaryData, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const primary = server(dir, primaryData, primaryPort, [
    ...settings,
    "synchronous_standby_names='standby'",
    'synchronous_commit=on',
  ]);
  await primary.start();
  const standbyData = join(dir, 'standby');
  const conninfo = `host=127.0.0.1 port=${primaryPort} user=postgres application_name=standby`;
  await pg('pg_basebackup', ['-d', conninfo, '-D', standbyData, '-R', '--wal-method=stream', '--no-sync']);
  const standby = server(dir, standbyData, standbyPort, settings);
  await standby.start();
  const admin = postgres(primary.url(), { max: 1, onnotice: () => {} });
  try {
    await waitFor(async () => (await admin`select sync_state from pg_stat_replication`)[0]?.sync_state, {
      until: (state) => state === 'sync',
      what: 'the standby streaming synchronously',
      timeoutMs: 30_000,
    });
  } finally {
    await admin.end();
  }
  return {
    primary,
    standby,
    /** Both hosts, for `DATABASE_URL`: sessions open on whichever is the primary. */
    url: (database = 'postgres') =>
      `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/${database}?target_session_attrs=primary`,
    /** The standby becomes the primary (`pg_ctl promote`), and waits until it takes writes. */
    promote: () => standby.ctl('promote'),
    destroy: async () => {
      await Promise.all([primary.stop('immediate').catch(() => {}), standby.stop('immediate').catch(() => {})]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type ReplicatedPostgres = Awaited<ReturnType<typeof createReplicatedPostgres>>;
