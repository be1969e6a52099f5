import type { Server } from 'node:http';
import { connect, createServer, type Socket, type Server as TcpServer } from 'node:net';
import { API_VERSION, createClient, PpsError, verifyWebhook, WebhookVerificationError } from '@pps/sdk';
import { listen } from '@pps/shared/runtime';
import { NEWEST_VERSION } from '@pps/shared/versions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personalMerchantAttributes } from '../fixtures/merchants';
import { billingAddress, expiryIn } from '../fixtures/payments';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * The SDK (`@pps/sdk`) against the real API over real HTTP: the two-step auth and its renewals (the token's
 * lifetime shortened by config, a key rotated under it), a payment retried after its connection dropped, a 400's
 * pointer, every page of a list, and a real webhook verified.
 */
let stack: TestStack;
let server: Server;
let base: string;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  stack = await createTestStack({
    webhooks: true,
    // A minute's tokens (the least the API allows), and revocations seen at once (no 5 s cache).
    env: { APP_TOKEN_TTL_SECONDS: '60', AUTH_CACHE_TTL_MS: '0', OUTBOX_POLL_INTERVAL_MS: '200' },
  });
  const listening = await listen(stack.gateway.fetch, 0, '127.0.0.1');
  server = listening.server as Server;
  base = `http://127.0.0.1:${listening.port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await stack?.close();
  await receiver?.close();
});

/** Every request the client sends, by method and path, through a fetch that counts them. */
function counted(baseUrl = base) {
  const calls: { call: string; status?: number }[] = [];
  const fetch = (request: Request) => {
    const entry: { call: string; status?: number } = { call: `${request.method} ${new URL(request.url).pathname}` };
    calls.push(entry);
    return globalThis.fetch(request).then((response) => {
      entry.status = response.status;
      return response;
    });
  };
  const of = (call: string) => calls.filter((sent) => sent.call === call);
  return {
    fetch,
    baseUrl,
    count: (call: string) => of(call).length,
    statuses: (call: string) => of(call).map((sent) => sent.status),
  };
}

const clientFor = (creds: Credentials, extra: Partial<Parameters<typeof createClient>[0]> = {}) =>
  createClient({ baseUrl: base, apiKey: creds.apiKey, appId: creds.appId, ...extra });

/** A merchant and a vault token made through the SDK. */
async function merchantAndToken(client: ReturnType<typeof createClient>) {
  const merchant = await client.POST('/merchants', {
    body: { data: { type: 'merchants', attributes: personalMerchantAttributes() } } as never,
  });
  const token = await client.POST('/tokens', {
    body: {
      data: {
        type: 'tokens',
        attributes: {
          tokenType: 'card',
          card: { holder: 'Jane Doe', number: '4111111111111111', expiry: expiryIn(3), code: '123' },
          billingAddress,
        },
      },
    },
  });
  return { merchantId: merchant.data.data.id, tokenId: token.data.data.id };
}

const paymentBody = (merchantId: string, tokenId: string, amount = '1500', requestId?: string) => ({
  data: {
    type: 'payments' as const,
    ...(requestId ? { requestId } : {}),
    attributes: {
      paymentType: 'tokenv3' as const,
      merchantId,
      token: { tokenId, holder: 'Jane Doe', expiry: expiryIn(3), useAVS: false },
      transaction: { amount, currency: 'USD' as const, invoice: 'SDK-1' },
      billingAddress,
    },
  },
});

describe('the API version', () => {
  it('is the newest the SDK was generated for, sent with every request; another may be asked for', async () => {
    expect(API_VERSION).toBe(NEWEST_VERSION);
    const creds = await stack.createAccount('SDK version');
    const client = clientFor(creds);
    const { response } = await client.GET('/payments', { params: { query: { limit: 1 } } });
    expect(response.headers.get('pps-version')).toBe(API_VERSION);
    const old = clientFor(creds, { apiVersion: '2026-11-21' });
    const answered = await old.GET('/payments', { params: { query: { limit: 1 } } });
    expect(answered.response.headers.get('pps-version')).toBe('2026-11-21');
  });
});

describe('the two-step auth', () => {
  it('authenticates on first use, and renews the token before it expires, once for concurrent calls', async () => {
    const creds = await stack.createAccount('SDK auth');
    const sent = counted();
    // Renew 58.5 s before a 60 s token expires: 1.5 s after it was made.
    const client = clientFor(creds, { fetch: sent.fetch, refreshBeforeMs: 58_500 });
    const first = await client.GET('/auth/token');
    expect(first.data.data.attributes.appId).toBe(creds.appId);
    expect([sent.count('POST /auth/key'), sent.count('POST /auth/token')]).toEqual([1, 1]);

    await client.GET('/auth/token'); // still fresh: no renewal
    expect(sent.count('POST /auth/token')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const answers = await Promise.all(Array.from({ length: 8 }, () => client.GET('/auth/token')));
    expect(answers.every((answer) => answer.response.status === 200)).toBe(true);
    // One renewal for the eight, with the same app key (no second key, which would revoke the first's tokens).
    expect([sent.count('POST /auth/key'), sent.count('POST /auth/token')]).toEqual([1, 2]);
  });

  it('replaces a revoked token once (its app key rotated elsewhere) and sends the call again', async () => {
    const creds = await stack.createAccount('SDK revoked');
    const sent = counted();
    const client = clientFor(creds, { fetch: sent.fetch });
    const { merchantId } = await merchantAndToken(client);
    // Someone makes a new app key: every token of the old one is revoked.
    const rotated = await fetch(`${base}/auth/key`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': creds.apiKey },
      body: JSON.stringify({ data: { type: 'auth', attributes: { appId: creds.appId } } }),
    });
    expect(rotated.status).toBe(201);

    const merchant = await client.GET('/merchants/{id}', { params: { path: { id: merchantId } } });
    expect(merchant.data.data.id).toBe(merchantId);
    expect(sent.count(`GET /merchants/${merchantId}`)).toBe(2); // refused with token_revoked, then again
    expect(sent.statuses(`GET /merchants/${merchantId}`)).toEqual([401, 200]);
    // The token was renewed once, from a new app key (the one held was superseded).
    expect([sent.count('POST /auth/key'), sent.count('POST /auth/token')]).toEqual([2, 2]);
  });
});

describe('payment creation', () => {
  it('retries with the same requestId after its connection dropped: one payment, answered once', async () => {
    const creds = await stack.createAccount('SDK retries');
    const proxy = await droppingProxy(new URL(base).port);
    const sent = counted(`http://127.0.0.1:${proxy.port}`);
    const client = createClient({
      baseUrl: sent.baseUrl,
      apiKey: creds.apiKey,
      appId: creds.appId,
      fetch: sent.fetch,
      retry: { baseDelayMs: 50 },
    });
    const { merchantId, tokenId } = await merchantAndToken(client);

    proxy.dropNextAnswerTo('POST /payments'); // the server pays, the answer never arrives
    const created = await client.createPayment(paymentBody(merchantId, tokenId, '2100'));
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('idempotent-replayed')).toBe('true');
    expect(sent.count('POST /payments')).toBe(2);
    expect(proxy.dropped).toBe(1);
    const rows = await stack.sql`select id from payments where merchant_id = ${merchantId}`;
    expect(rows.map((row) => row.id)).toEqual([created.data.data.id]);
    await proxy.close();
  });

  it('throws a 400 at once, its pointer on the error, never retried', async () => {
    const creds = await stack.createAccount('SDK errors');
    const sent = counted();
    const client = clientFor(creds, { fetch: sent.fetch });
    const { merchantId, tokenId } = await merchantAndToken(client);
    const error = await client.createPayment(paymentBody(merchantId, tokenId, '1')).catch((thrown) => thrown);
    expect(error).toBeInstanceOf(PpsError);
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_field',
      pointer: '/data/attributes/transaction/amount',
      title: 'Bad Request',
    });
    expect(error.requestId).toMatch(/\S/);
    expect(sent.count('POST /payments')).toBe(1);
    const invalid = await client
      .POST('/merchants', { body: { data: { type: 'merchants', attributes: {} } } as never })
      .then(() => undefined)
      .catch((thrown: PpsError) => thrown);
    if (!invalid) throw new Error('an empty merchant was accepted');
    expect(invalid.status).toBe(400);
    expect(invalid.errors.length).toBeGreaterThan(1); // every invalid field
    expect(invalid.pointer).toMatch(/^\/data\/attributes\//);
  });
});

describe('lists', () => {
  it('iterates every one of 250 payments with for await, page after page', async () => {
    const creds = await stack.createAccount('SDK lists');
    const sent = counted();
    const client = clientFor(creds, { fetch: sent.fetch });
    const { merchantId, tokenId } = await merchantAndToken(client);
    const made = new Set<string>();
    for (let batch = 0; batch < 10; batch++) {
      const created = await Promise.all(
        Array.from({ length: 25 }, () => client.createPayment(paymentBody(merchantId, tokenId))),
      );
      for (const payment of created) made.add(payment.data.data.id);
    }
    const seen: string[] = [];
    for await (const payment of client.list('/payments', { query: { id: merchantId } })) seen.push(payment.id);
    expect(seen).toHaveLength(250);
    expect(new Set(seen)).toEqual(made);
    expect(sent.count('GET /payments')).toBe(3); // 100, 100, 50
  });
});

describe('webhooks', () => {
  it('verifies a real delivery and returns the typed event; refuses a tampered body', async () => {
    const creds = await stack.createAccount('SDK webhooks');
    const client = clientFor(creds);
    const { merchantId, tokenId } = await merchantAndToken(client);
    const endpoint = await client.POST('/webhooks', {
      body: { data: { type: 'webhooks', attributes: { url: receiver.url('/sdk'), events: ['payment.created'] } } },
    });
    const secret = endpoint.data.data.attributes.secret;
    const payment = await client.createPayment(paymentBody(merchantId, tokenId));
    const [request] = await waitFor(() => receiver.at('/sdk'), {
      until: (list) => list.length >= 1,
      what: 'a delivery',
    });

    const event = verifyWebhook(request!.body, request!.headers, secret);
    expect(event.type).toBe('payment.created');
    expect(event.data.id).toBe(payment.data.data.id);
    expect(event.data.sequence).toBe(1);
    expect(() => verifyWebhook(request!.body.replace('pay_', 'pay_x'), request!.headers, secret)).toThrow(
      WebhookVerificationError,
    );
    const old = { ...request!.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) };
    expect(() => verifyWebhook(request!.body, old, secret)).toThrow(WebhookVerificationError);
  });
});

/**
 * A TCP proxy to the API that can drop one answer: the request reaches the server whole, and the client's
 * connection is destroyed as the server's answer arrives, as when a network drops a connection mid-answer.
 */
async function droppingProxy(upstreamPort: string) {
  let dropFor: string | undefined;
  let dropped = 0;
  const sockets = new Set<Socket>();
  const proxy: TcpServer = createServer((client) => {
    sockets.add(client);
    const upstream = connect(Number(upstreamPort), '127.0.0.1');
    sockets.add(upstream);
    let dropThis = false;
    client.on('data', (chunk) => {
      const line = chunk.toString('latin1').split('\r\n')[0] ?? '';
      if (dropFor && line.startsWith(`${dropFor} `)) {
        dropThis = true;
        dropFor = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (dropThis) {
        dropped += 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as { port: number }).port,
    dropNextAnswerTo: (requestLine: string) => {
      dropFor = requestLine;
    },
    get dropped() {
      return dropped;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}
