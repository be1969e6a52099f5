import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStack, type TestStack } from './harness';

let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(() => stack.close());

describe('smoke', () => {
  it('walks key → token → authenticated call', async () => {
    const creds = await stack.createAccount();
    const res = await stack.call('GET', '/auth/token', { as: creds });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.appId).toBe(creds.appId);
    const merchants = await stack.call('GET', '/merchants', { as: creds });
    expect(merchants.status).toBe(404);
  });
});
