import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { databaseNameOf, withDatabase } from './database-url';

/** Defined as `true` by scripts/build.ts (esbuild `define`) in the bundles of dist/; undeclared when run from source. */
declare const __PPS_BUNDLED__: boolean | undefined;

/**
 * The committed migrations, read at run time: next to this package when run from source (tsx, vitest), and
 * dist/drizzle (copied there by the build) when bundled, wherever dist/ is.
 */
export const MIGRATIONS_FOLDER = fileURLToPath(
  new URL(typeof __PPS_BUNDLED__ !== 'undefined' && __PPS_BUNDLED__ ? './drizzle' : '../../drizzle', import.meta.url),
);

/** Arbitrary constant: the advisory lock every migrating process takes, so N replicas migrate once. */
const MIGRATION_LOCK_KEY = 727_274_001;

/** Creates the database if missing, then applies migrations on one dedicated connection under an advisory lock. */
export async function runMigrations(url: string): Promise<void> {
  await ensureDatabase(url);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function ensureDatabase(url: string): Promise<void> {
  const name = databaseNameOf(url);
  const sql = postgres(withDatabase(url, 'postgres'), { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    if (rows.length === 0) {
      await sql.unsafe(`create database "${name.replaceAll('"', '""')}"`).catch((error: { code?: string }) => {
        // Created meanwhile by another process: found by name (42P04), or, when both inserted at once, by
        // pg_database's unique index (23505).
        if (error.code !== '42P04' && error.code !== '23505') throw error;
      });
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * True when every committed migration has been applied (used by /readyz). A database without the migrations table
 * has none applied; one that cannot be reached throws, so the caller can tell the two apart.
 */
export async function migrationsApplied(sql: postgres.Sql, expected: number): Promise<boolean> {
  const rows = await sql<{ count: string }[]>`select count(*)::text as count from drizzle.__drizzle_migrations`.catch(
    (error: { code?: string }) => {
      // undefined_table, invalid_schema_name: nothing migrated yet
      if (error.code === '42P01' || error.code === '3F000') return [{ count: '0' }];
      throw error;
    },
  );
  return Number(rows[0]?.count ?? 0) >= expected;
}
