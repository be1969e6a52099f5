import type { Request } from 'autocannon';

export type Scenario = {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A sequence per connection (e.g. a fresh idempotency key per request via setupRequest). */
  requests?: Request[];
};

/** The benchmarks, first one the baseline the others are compared with. */
export async function scenarios(_base: string, credentials: { headers: Record<string, string> }): Promise<Scenario[]> {
  return [
    { name: 'GET /healthz (no auth, baseline)', method: 'GET', path: '/healthz' },
    { name: 'GET /auth/token (four-header check)', method: 'GET', path: '/auth/token', headers: credentials.headers },
    {
      name: 'GET /payments/states (auth + signed forward)',
      method: 'GET',
      path: '/payments/states',
      headers: credentials.headers,
    },
  ];
}
