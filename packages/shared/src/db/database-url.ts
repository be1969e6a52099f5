/**
 * A PostgreSQL URL's parts, for URLs `new URL` cannot read: several hosts (`postgres://u@h1:5432,h2:5433/pps?…`,
 * what postgres.js and libpq take for failover, with `target_session_attrs=primary`).
 */
const DATABASE_URL = /^(postgres(?:ql)?:\/\/[^/\s]+)\/([^/?\s]+)(\?\S*)?$/;

function partsOf(url: string) {
  const match = DATABASE_URL.exec(url);
  if (!match) throw new Error('DATABASE_URL must be postgres://[user[:password]@]host[:port][,host[:port]…]/database');
  return { server: match[1]!, database: decodeURIComponent(match[2]!), query: match[3] ?? '' };
}

/** Whether `url` is a PostgreSQL URL with one host or several, and a database. */
export const isDatabaseUrl = (url: string) => DATABASE_URL.test(url);

/** The database a URL names. */
export const databaseNameOf = (url: string) => partsOf(url).database;

/** The same server(s) and options, another database. */
export function withDatabase(url: string, database: string): string {
  const { server, query } = partsOf(url);
  return `${server}/${encodeURIComponent(database)}${query}`;
}
