import { PpsError } from './errors.js';
import type { components } from './schema.js';

type Fetch = (input: Request) => Promise<Response>;

export type AuthOptions = {
  baseUrl: string;
  apiKey: string;
  appId: string;
  /** An app key made before: kept, so this client does not supersede the key other processes of the app use. */
  appKey?: string;
  /** Renew the app token this long before it expires (default: 5 minutes, or half the token's life if shorter). */
  refreshBeforeMs?: number;
  fetch: Fetch;
};

/**
 * The two-step auth (API key → app key → app token), done on first use and kept: the token is renewed before it
 * expires, or when the API says it expired or was revoked; calls that need one at the same time share one renewal.
 * A new app key is made only when there is none, or when the one held was superseded (a new key revokes the old
 * one's tokens, so processes of one app should share a key: pass `appKey`).
 */
export class AppTokens {
  readonly #options: AuthOptions;
  #appKey: string | undefined;
  #token: { value: string; renewAt: number } | undefined;
  #renewing: Promise<string> | undefined;

  constructor(options: AuthOptions) {
    this.#options = options;
    this.#appKey = options.appKey;
  }

  /** A token good for a while yet. */
  token(): Promise<string> {
    if (this.#token && Date.now() < this.#token.renewAt) return Promise.resolve(this.#token.value);
    return this.#renew();
  }

  /**
   * The API refused `stale` (`token_expired`, `token_revoked`): a new token, once for all the calls it refused. A
   * revoked token means its app key was superseded: a new key is made first.
   */
  replace(stale: string, code: string): Promise<string> {
    if (this.#token && this.#token.value !== stale) return this.token();
    this.#token = undefined;
    if (code === 'token_revoked') this.#appKey = undefined;
    return this.#renew();
  }

  #renew(): Promise<string> {
    this.#renewing ??= this.#mint().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  async #mint(): Promise<string> {
    this.#appKey ??= await this.#newAppKey();
    let token: components['schemas']['AppToken'];
    try {
      token = await this.#post<components['schemas']['AppToken']>('/auth/token', { appKey: this.#appKey });
    } catch (error) {
      // Superseded since (another client of the app made a new one): make ours, once.
      if (!(error instanceof PpsError) || error.code !== 'app_key_superseded') throw error;
      this.#appKey = await this.#newAppKey();
      token = await this.#post<components['schemas']['AppToken']>('/auth/token', { appKey: this.#appKey });
    }
    const { appToken, expiresAt, expiresIn } = token.attributes;
    const margin = this.#options.refreshBeforeMs ?? Math.min(5 * 60_000, (expiresIn * 1000) / 2);
    const renewAt = Math.max(Date.now(), Date.parse(expiresAt) - margin);
    this.#token = { value: appToken, renewAt };
    return appToken;
  }

  async #newAppKey(): Promise<string> {
    const key = await this.#post<components['schemas']['AppKey']>('/auth/key', { appId: this.#options.appId });
    return key.attributes.appKey;
  }

  async #post<T>(path: string, attributes: Record<string, string>): Promise<T> {
    const request = new Request(new URL(path, this.#options.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': this.#options.apiKey },
      body: JSON.stringify({ data: { type: 'auth', attributes } }),
    });
    const response = await this.#options.fetch(request).catch((error: unknown) => {
      throw PpsError.network(error);
    });
    if (!response.ok) throw await PpsError.fromResponse(response);
    return ((await response.json()) as { data: T }).data;
  }
}
