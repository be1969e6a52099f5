import { runMigrations } from '@pps/shared/db';
import postgres from 'postgres';

/** Drops and recreates the database of `url`, then migrates it (unless told not to): each run starts from nothing. */
export async function freshDatabase(url: string, options: { migrate?: boolean } = {}): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = postgres(Object.assign(new URL(url), { pathname: '/postgres' }).toString(), { onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
  await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
  await admin.end();
  if (options.migrate !== false) await runMigrations(url);
}

/**
 * What autovacuum would have done by the time of a measured load. PostgreSQL runs it by default, but this machine's
 * cluster has it off: a bench database would keep every dead row version and never get statistics, so the planner
 * would go on guessing and PostgreSQL's CPU per request would grow load after load. Each bench vacuums and analyzes
 * its databases (the bare server's as the platform's) before each load it measures instead.
 */
export async function vacuumAnalyze(...urls: string[]): Promise<void> {
  for (const url of urls) {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    await sql.unsafe('vacuum analyze');
    await sql.end();
  }
}
