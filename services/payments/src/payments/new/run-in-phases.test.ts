import { describe, expect, it } from 'vitest';
import type { ClaimResult } from '../idempotency/claims';
import { type Phased, runInPhases } from './run-in-phases';

/**
 * `runInPhases`'s own decisions, with phases that say what happened to their commits (the database itself is
 * exercised by test/payments/group-commit.test.ts and test/platform/database-restart.slow.test.ts): after a phase-1 commit lost with the
 * connection, the key tells whether it went through, and the payment goes on (or is claimed afresh) rather than
 * leaving its client 409s until recovery.
 */
const lost = () => Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' });
const key = { value: '6f1c1f3e-7d5c-4a43-9d3e-3f0f2f6c1a11', from: 'body' as const };

function phased(claims: (() => ClaimResult)[]) {
  const calls = { claims: 0, processor: 0 };
  const phases: Phased<string> = {
    paymentId: 'pay_this',
    claim: async () => {
      const next = claims[calls.claims];
      calls.claims += 1;
      if (!next) throw new Error('claimed too often');
      return next();
    },
    call: async () => {
      calls.processor += 1;
      return 'approved';
    },
    record: async (answer) => ({ status: 201, body: { answer } }),
  };
  return { phases, calls };
}

const run = (phases: Phased<string>) =>
  runInPhases({
    db: undefined as never,
    accountId: 'acc_1',
    data: { requestId: key.value },
    key,
    ttlDays: 7,
    baseUrl: 'http://localhost',
    now: new Date(),
    begin: async () => phases,
  });

const heldBy = (paymentId: string): ClaimResult => ({
  claimed: false,
  held: {
    requestHash: 'x',
    responseStatus: null,
    responseBody: null,
    createdAt: new Date(),
    paymentId,
    firstEvent: null,
  },
});

describe('runInPhases after a phase-1 commit lost with the connection', () => {
  it('goes on when the key shows the lost commit went through (held for this very payment)', async () => {
    const { phases, calls } = phased([
      () => {
        throw lost();
      },
      () => heldBy('pay_this'),
    ]);
    expect(await run(phases)).toEqual({ status: 201, body: { answer: 'approved' }, replayed: false });
    expect(calls).toEqual({ claims: 2, processor: 1 });
  });

  it('claims afresh when it did not', async () => {
    const { phases, calls } = phased([
      () => {
        throw lost();
      },
      () => ({ claimed: true }),
    ]);
    expect((await run(phases)).status).toBe(201);
    expect(calls).toEqual({ claims: 2, processor: 1 });
  });

  it('never calls the processor for a key another payment holds', async () => {
    const { phases, calls } = phased([() => heldBy('pay_other')]);
    await expect(run(phases)).rejects.toMatchObject({ status: 409 });
    expect(calls).toEqual({ claims: 1, processor: 0 });
  });
});
