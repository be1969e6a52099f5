import { describe, expect, it } from 'vitest';
import { deliveryResource, webhookDocument, webhookDocumentWithSecret, webhookResource } from './webhooks.presenter';
import type { WebhookEndpoint } from './webhooks.repository';

const at = new Date('2026-11-22T17:04:05.123Z');
const endpoint: WebhookEndpoint = {
  id: 'whk_01jd0000000000000000000000',
  accountId: 'acct_01jd0000000000000000000000',
  url: 'https://receiver.example.com/hooks',
  events: ['payment.completed'],
  description: null,
  enabled: true,
  apiVersion: '2026-11-29',
  disabledReason: null,
  failingSince: null,
  secretEnc: 'v1.d1.iv.tag.current',
  previousSecretEnc: 'v1.d1.iv.tag.previous',
  previousSecretExpiresAt: at,
  deletedAt: null,
  createdAt: at,
  updatedAt: at,
};

describe('webhook presenter', () => {
  it('never shows a secret, current or previous, nor the account', () => {
    const resource = webhookResource(endpoint);
    expect(Object.keys(resource.attributes)).toEqual([
      'url',
      'events',
      'description',
      'enabled',
      'apiVersion',
      'disabledReason',
      'createdAt',
      'updatedAt',
    ]);
    expect(JSON.stringify(webhookDocument('http://localhost:8080', endpoint))).not.toMatch(/secret|v1\.d1|acct_/i);
  });

  it('shows the clear secret only when handed one, before the timestamps', () => {
    const document = webhookDocumentWithSecret('http://localhost:8080', endpoint, 'whsec_abc');
    expect(document.links.self).toBe(`http://localhost:8080/webhooks/${endpoint.id}`);
    expect(Object.keys(document.data.attributes)).toEqual([
      'url',
      'events',
      'description',
      'enabled',
      'apiVersion',
      'disabledReason',
      'secret',
      'createdAt',
      'updatedAt',
    ]);
    expect(document.data.attributes.secret).toBe('whsec_abc');
    expect(JSON.stringify(document)).not.toContain('v1.d1');
  });

  it('shows a delivery with its attempts and null timestamps as null', () => {
    const resource = deliveryResource({
      delivery: {
        id: 'del_1',
        accountId: endpoint.accountId,
        endpointId: endpoint.id,
        eventId: 'evt_1',
        status: 'pending',
        attempts: 1,
        redeliveries: 0,
        lastStatusCode: null,
        lastError: 'timed out after 15000 ms',
        nextAttemptAt: at,
        enqueuedAt: at,
        leasedUntil: null,
        completedAt: null,
        createdAt: at,
        updatedAt: at,
      },
      eventType: 'payment.completed',
      attempts: [
        { id: 1, deliveryId: 'del_1', attempt: 1, statusCode: null, latencyMs: 15000, error: 'timeout', createdAt: at },
      ],
    });
    expect(resource.attributes).toMatchObject({
      eventType: 'payment.completed',
      nextAttemptAt: at.toISOString(),
      completedAt: null,
      attemptLog: [{ attempt: 1, statusCode: null, latencyMs: 15000, error: 'timeout', createdAt: at.toISOString() }],
    });
    expect(resource.attributes).not.toHaveProperty('leasedUntil');
    expect(resource.attributes).not.toHaveProperty('enqueuedAt');
    expect(resource.attributes).not.toHaveProperty('accountId');
  });
});
