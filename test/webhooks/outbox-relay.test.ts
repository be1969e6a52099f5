import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayment, newRequestId, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * The outbox relay is woken, not polled: with its polling a minute apart, every event must still leave the relay's
 * queue within seconds, whether it commits while the relay sleeps, while a round runs, or while the relay's LISTEN
 * connection is being re-established.
 */

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack({ webhooks: true, env: { OUTBOX_POLL_INTERVAL_MS: '60000' } });
  ({ creds, merchantId, tokenId } = await createWorld(stack));
  await queueEmpty(); // the events above, and the relay's first round (at start) behind us
});
afterAll(async () => {
  await stack?.close();
});

const pay = () => createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, requestId: newRequestId() }));

/** Waits until the relay has taken every event off its queue; fails after `timeoutMs` (polling is 60 s away). */
async function queueEmpty(timeoutMs = 5_000): Promise<void> {
  await waitFor(async () => (await stack.sql`select count(*)::int as queued from unrelayed_events`)[0]?.queued, {
    until: (queued) => queued === 0,
    timeoutMs,
    intervalMs: 25,
    what: 'an empty relay queue',
  });
}

describe('outbox relay wake-ups', () => {
  it('relays an event committed while the relay sleeps', async () => {
    await pay();
    await queueEmpty();
  });

  it('relays every event of a burst, those committed while a round ran included', async () => {
    for (let burst = 0; burst < 3; burst++) {
      await Promise.all(Array.from({ length: 15 }, pay));
      await queueEmpty();
    }
  });

  it('catches up at once when its LISTEN connection is cut and comes back', async () => {
    const [listener] = await stack.sql`
      select pid from pg_stat_activity where datname = current_database() and query ilike 'listen%'`;
    expect(listener?.pid).toBeTypeOf('number');
    await stack.sql`select pg_terminate_backend(${listener!.pid}::int)`;
    // Committed before the relay listens again, most likely: no notification reaches it.
    await pay();
    await queueEmpty();
    const [again] = await stack.sql`
      select pid from pg_stat_activity where datname = current_database() and query ilike 'listen%'`;
    expect(again?.pid).not.toBe(listener!.pid);
  });
});
