import { sha256Hex } from '@pps/shared/crypto';
import type { DbOrTx } from '@pps/shared/db';
import type { Account } from '@pps/shared/db/schema';
import { findAccountByApiKeyHash, findApp } from './auth.repository';

type Entry<T> = { value: T; expiresAt: number };

/** A tiny TTL map: steady-state auth costs no database round trip; a revocation is seen within the TTL. */
class TtlCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.value;
    const value = await load();
    if (value === undefined || this.ttlMs === 0) {
      this.entries.delete(key);
      return value;
    }
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    return value;
  }

  deleteWhere(match: (value: T) => boolean): void {
    for (const [key, entry] of this.entries) if (match(entry.value)) this.entries.delete(key);
  }
}

/** What authentication keeps of an account; `apiVersion` is its pin (a caller the gateway makes up has none). */
export type AccountSnapshot = Pick<Account, 'id' | 'name' | 'status' | 'clockOffsetSeconds'> & { apiVersion?: string };
export type AppSnapshot = { id: string; accountId: string; keyVersion: number };

export class AuthCache {
  private readonly accounts: TtlCache<AccountSnapshot>;
  private readonly apps: TtlCache<AppSnapshot>;

  constructor(
    private readonly db: DbOrTx,
    ttlMs: number,
    now: () => number = Date.now,
  ) {
    this.accounts = new TtlCache(ttlMs, now);
    this.apps = new TtlCache(ttlMs, now);
  }

  accountByApiKey(apiKey: string): Promise<AccountSnapshot | undefined> {
    const hash = sha256Hex(apiKey);
    return this.accounts.get(hash, async () => {
      const row = await findAccountByApiKeyHash(this.db, hash);
      return (
        row && {
          id: row.id,
          name: row.name,
          status: row.status,
          clockOffsetSeconds: row.clockOffsetSeconds,
          apiVersion: row.apiVersion,
        }
      );
    });
  }

  app(appId: string): Promise<AppSnapshot | undefined> {
    return this.apps.get(appId, async () => {
      const row = await findApp(this.db, appId);
      return row && { id: row.id, accountId: row.accountId, keyVersion: row.keyVersion };
    });
  }

  /** After a change this gateway made itself (status, clock, new key), forget what it cached. */
  forgetAccount(accountId: string): void {
    this.accounts.deleteWhere((account) => account.id === accountId);
    this.apps.deleteWhere((app) => app.accountId === accountId);
  }
}
