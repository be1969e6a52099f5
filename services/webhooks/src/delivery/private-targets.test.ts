import { createServer, type Server } from 'node:http';
import { loadConfig } from '@pps/shared/config';
import { FieldCipher } from '@pps/shared/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiverAgent, sendDelivery } from './delivery';
import type { LoadedDelivery } from './delivery-io';
import { newWebhookSecret } from './secrets';

/**
 * Private targets in production (docs/design.md, Webhook delivery): a delivery to a loopback receiver, by address
 * or by a name resolved as the connection is made, is refused without a request unless WEBHOOK_ALLOW_PRIVATE.
 */

let server: Server;
let port: number;
let requests = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    requests += 1;
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const base = loadConfig({ ...process.env, NODE_ENV: 'test' });
const cipher = new FieldCipher(base.DATA_ENCRYPTION_KEYS);

const delivery = (url: string): LoadedDelivery => ({
  id: 'dlv_test',
  status: 'pending',
  attempts: 0,
  endpointId: 'wh_test',
  eventId: 'evt_test',
  eventCreatedAt: new Date(),
  body: '{"type":"webhook.test"}',
  url,
  enabled: true,
  deletedAt: null,
  secretEnc: cipher.encrypt(newWebhookSecret()),
  previousSecretEnc: null,
  previousSecretExpiresAt: null,
  apiVersion: '2026-11-29',
});

/** Sends to `url` under `env`, and how many requests the receiver got meanwhile. */
async function send(url: string, env: { NODE_ENV: 'production' | 'test'; WEBHOOK_ALLOW_PRIVATE: boolean }) {
  const config = { ...base, ...env };
  const agent = receiverAgent(config);
  const before = requests;
  try {
    const sent = await sendDelivery({ config, cipher, agent }, delivery(url));
    return { sent, requests: requests - before };
  } finally {
    await agent.close();
  }
}

describe('private targets', () => {
  const production = { NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: false } as const;

  it('in production, refuses a loopback address without a request', async () => {
    const { sent, requests } = await send(`http://127.0.0.1:${port}/hooks`, production);
    expect(sent).toMatchObject({ requested: false, statusCode: null });
    expect(sent.error).toBe('url resolves to a private, link-local or loopback address (127.0.0.1)');
    expect(requests).toBe(0);
  });

  it('in production, refuses a name that resolves to loopback, checked as the connection is made', async () => {
    const { sent, requests } = await send(`http://localhost:${port}/hooks`, production);
    expect(sent).toMatchObject({ requested: false, statusCode: null });
    expect(sent.error).toMatch(/^url resolves to a private, link-local or loopback address \((127\.0\.0\.1|::1)\)$/);
    expect(requests).toBe(0);
  });

  it('delivers to them with WEBHOOK_ALLOW_PRIVATE, and outside production', async () => {
    for (const env of [
      { ...production, WEBHOOK_ALLOW_PRIVATE: true },
      { ...production, NODE_ENV: 'test' as const },
    ]) {
      const { sent, requests } = await send(`http://localhost:${port}/hooks`, env);
      expect(sent).toMatchObject({ requested: true, statusCode: 204, error: null });
      expect(requests).toBe(1);
    }
  });
});
