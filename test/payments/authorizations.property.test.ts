import { createDataCipher, SandboxProcessor } from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import { verifyKeptFigures } from '@pps/shared/ledger';
import { createLogger } from '@pps/shared/logger';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureBody, newRequestId, postPayment, refundBody, splitBody, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * One authorization (`capture: false`, with or without a split) and a random history on it: captures (whole, a
 * share, or cents), cancels, refunds, and clock moves of four days with a settlement pass (which settles a captured
 * payment and voids a lapsed authorization), some fired together. After it: the ledger sums to zero, posting by
 * posting, and each merchant's balance is what the answers said was captured, less fees, split and refunds; an
 * authorization that ended uncaptured moved nothing. The expected figures come from the answers, not from the rows.
 */

let stack: TestStack;

beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(() => stack?.close());

type AmountChoice = { mode: 'whole' } | { mode: 'permille'; permille: number } | { mode: 'cents'; cents: number };
type Command =
  | { kind: 'capture'; amount: AmountChoice }
  | { kind: 'cancel' }
  | { kind: 'refund'; amount: AmountChoice }
  | { kind: 'fourDays' };

const amountChoice: fc.Arbitrary<AmountChoice> = fc.oneof(
  fc.constant({ mode: 'whole' as const }),
  fc.record({ mode: fc.constant('permille' as const), permille: fc.integer({ min: 1, max: 1200 }) }),
  fc.record({ mode: fc.constant('cents' as const), cents: fc.integer({ min: 1, max: 6000 }) }),
);
const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('capture' as const), amount: amountChoice }), weight: 4 },
  { arbitrary: fc.constant({ kind: 'cancel' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('refund' as const), amount: amountChoice }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'fourDays' as const }), weight: 1 },
);
const history = fc.record({
  amount: fc.integer({ min: 50, max: 5000 }),
  splitPermille: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
  batches: fc.array(fc.array(command, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
});

/** 2.9% rounded half up, plus 30 cents: the platform's default pricing. */
const feesOf = (amount: number) => Math.floor((amount * 290 + 5_000) / 10_000) + 30;

const refusals: Record<Command['kind'], [number, string][]> = {
  capture: [
    [400, 'capture_exceeds_authorization'],
    [400, 'capture_below_split'],
    [400, 'amount_below_fees'],
    [422, 'not_authorized'],
    [422, 'already_captured'],
    [422, 'authorization_expired'],
  ],
  cancel: [
    [400, 'partial_cancel_not_supported'],
    [400, 'refund_exceeds_amount'],
    [422, 'payment_not_refundable'],
    [422, 'already_refunded'],
  ],
  refund: [
    [400, 'partial_cancel_not_supported'],
    [400, 'refund_exceeds_amount'],
    [422, 'payment_not_refundable'],
    [422, 'already_refunded'],
  ],
  fourDays: [],
};

/** What the answers said happened to the authorization. */
type Story = { authorized: number; split: number; captured: number | null; refunded: number; voided: boolean };

const amountOf = (choice: AmountChoice, of: number) =>
  choice.mode === 'whole'
    ? of
    : choice.mode === 'permille'
      ? Math.max(1, Math.round((of * choice.permille) / 1000))
      : choice.cents;

function send(creds: Credentials, parentId: string, story: Story, cmd: Command): Promise<ApiResponse> {
  const requestId = newRequestId();
  switch (cmd.kind) {
    case 'capture':
      return postPayment(
        stack,
        creds,
        cmd.amount.mode === 'whole'
          ? captureBody(parentId, undefined, requestId)
          : captureBody(parentId, String(amountOf(cmd.amount, story.authorized)), requestId),
      );
    case 'cancel':
      return postPayment(stack, creds, refundBody(parentId, String(story.authorized), requestId));
    case 'refund':
      return postPayment(
        stack,
        creds,
        refundBody(parentId, String(amountOf(cmd.amount, story.captured ?? story.authorized)), requestId),
      );
    case 'fourDays':
      return (async () => {
        const body = { data: { type: 'clock', attributes: { advanceSeconds: 4 * 86_400 } } };
        const moved = await stack.call('POST', '/sandbox/clock', { as: creds, body });
        await runSettlementPass(
          {
            db: stack.db,
            config: stack.config,
            cipher: createDataCipher(stack.config),
            processor: new SandboxProcessor(),
            log: createLogger({ level: 'silent' }),
          },
          { now: new Date(), batchSize: 100, accountId: creds.accountId },
        );
        return moved;
      })();
  }
}

/** Checks the answer is a 2xx or an allowed refusal, and tells the story what it did. */
function learn(story: Story, cmd: Command, response: ApiResponse): void {
  const context = `${JSON.stringify(cmd)} → ${response.status} ${JSON.stringify(response.body)}`;
  expect(response.status, context).toBeLessThan(500);
  if (cmd.kind === 'fourDays') {
    expect(response.status, context).toBe(200);
    return;
  }
  if (response.status !== 201) {
    const code = response.body?.errors?.[0]?.code;
    const match = refusals[cmd.kind].find(([status, allowed]) => status === response.status && allowed === code);
    expect(match, context).toBeDefined();
    expectError(response, match![0], match![1]);
    return;
  }
  const attributes = response.body.data.attributes;
  if (cmd.kind === 'capture') {
    expect(story.captured, context).toBeNull();
    story.captured = Number(attributes.transaction.amount);
  } else if (attributes.transaction.refundType === 'void') story.voided = true;
  else story.refunded += Number(attributes.transaction.amount);
}

describe('authorize, capture, cancel, refund and settle on one payment', () => {
  it('keeps the ledger at zero and each balance at what was captured less fees, split and refunds', async () => {
    await fc.assert(
      fc.asyncProperty(history, async ({ amount, splitPermille, batches }) => {
        const world = await createWorld(stack, { account: 'Property hotel', partners: ['Tips'] });
        const [partnerId] = world.partnerIds;
        const split =
          splitPermille === null ? 0 : Math.max(1, Math.floor(((amount - feesOf(amount)) * splitPermille) / 1000));
        const base = { merchantId: world.merchantId, tokenId: world.tokenId, amount: String(amount) };
        const body =
          split > 0
            ? splitBody({ ...base, splitMerchantId: partnerId, splitAmount: String(split) })
            : tokenv3Body(base);
        (body.data.attributes as Record<string, unknown>).capture = false;
        const created = await postPayment(stack, world.creds, body);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const parentId = created.body.data.id;
        const story: Story = { authorized: amount, split, captured: null, refunded: 0, voided: false };

        for (const batch of batches) {
          const responses = await Promise.all(batch.map((cmd) => send(world.creds, parentId, story, cmd)));
          for (const [index, cmd] of batch.entries()) learn(story, cmd, responses[index]!);
        }

        const parent = (await stack.call('GET', `/payments/${parentId}`, { as: world.creds })).body.data.attributes;
        const context = JSON.stringify({ story, parent });
        const [total] = await stack.sql`select coalesce(sum(amount), 0)::bigint as sum from ledger_entries`;
        expect(Number(total!.sum), context).toBe(0);
        const unbalanced = await stack.sql`select posting_id from ledger_entries
          group by posting_id having sum(amount) <> 0`;
        expect(unbalanced, context).toEqual([]);
        // Every kept balance is the sum of its entries, every kept list total the count of its rows.
        expect((await verifyKeptFigures(stack.db)).differences, context).toEqual([]);

        const live = story.captured !== null && !story.voided;
        const captured = story.captured ?? 0;
        const primary = live ? captured - feesOf(captured) - split - story.refunded : 0;
        const balanceOf = async (merchantId: string) => {
          const balance = (await stack.call('GET', `/merchants/${merchantId}/balance`, { as: world.creds })).body.data
            .attributes;
          return Number(balance.pending) + Number(balance.available) + Number(balance.inTransit);
        };
        expect(await balanceOf(world.merchantId), context).toBe(primary);
        expect(await balanceOf(partnerId), context).toBe(live ? split : 0);
        const [fees] = await stack.sql`select coalesce(sum(amount), 0)::int as sum from ledger_entries
          where account_id = ${world.creds.accountId} and ledger_account = 'operator:fees'`;
        expect(fees!.sum, context).toBe(live ? feesOf(captured) : 0);

        // The parent's status follows from the story.
        if (story.voided || (story.captured === null && parent.status === 'voided')) {
          expect(parent.status, context).toBe('voided');
        } else if (story.captured === null) {
          expect(parent.status, context).toBe('authorized');
        } else {
          expect(parent.transaction.amount, context).toBe(String(captured));
          // Refunds reach the gross only without a split (they take at most gross − split).
          if (story.refunded > 0) {
            expect(parent.status, context).toBe(story.refunded === captured ? 'refunded' : 'partial_refund');
          }
          expect(['pending', 'completed', 'partial_refund', 'refunded'], context).toContain(parent.status);
        }
      }),
      { numRuns: 25 },
    );
  }, 180_000);
});
