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
