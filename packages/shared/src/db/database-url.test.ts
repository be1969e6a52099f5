import { describe, expect, it } from 'vitest';
import { databaseNameOf, isDatabaseUrl, withDatabase } from './database-url';

describe('database URLs', () => {
  const failover = 'postgres://postgres@10.0.0.1:5432,10.0.0.2:5433/pps?target_session_attrs=primary';

  it('reads the database of a URL with one host or several', () => {
    expect(databaseNameOf('postgres://postgres@127.0.0.1:5432/pps')).toBe('pps');
    expect(databaseNameOf(failover)).toBe('pps');
    expect(databaseNameOf('postgresql://u:p%40ss@db/my%20db')).toBe('my db');
  });

  it('names another database on the same hosts, keeping the options', () => {
    expect(withDatabase(failover, 'postgres')).toBe(
      'postgres://postgres@10.0.0.1:5432,10.0.0.2:5433/postgres?target_session_attrs=primary',
    );
  });

  it('refuses what is no PostgreSQL URL with a database', () => {
    expect(isDatabaseUrl(failover)).toBe(true);
    for (const url of ['http://db/pps', 'postgres://db', 'postgres://db/', 'postgres://db/a/b', 'pps']) {
      expect(isDatabaseUrl(url), url).toBe(false);
    }
    expect(() => databaseNameOf('postgres://db')).toThrow('DATABASE_URL must be');
  });
});
