import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, setMerchantFeatures } from '../fixtures/merchants';
import {
  createCardToken,
  newRequestId,
  postPayment,
  refundBody,
  refundSplitBody,
  secondSplitBody,
  splitBody,
  tokenv3Body,
} from '../fixtures/payments';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * A random history of captures, refunds, voids, split refunds and second splits (some of them fired together),
 * then the books are checked against the records: the ledger balances, each merchant's ledger balance is what
 * its payment records say it should be, the operator keeps the fees of what was not voided, and nothing was
 * refunded beyond what the rules allow. Each fast-check run has an account and merchants of its own.
 */

let stack: TestStack;

beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(() => stack?.close());

/** How a command picks its amount: what the rules still allow (read from the rows), a share of the gross, or cents. */
type AmountChoice = { mode: 'exact' } | { mode: 'permille'; permille: number } | { mode: 'cents'; cents: number };

type Command =
  | { kind: 'capture'; amount: number; splitPermille: number | null }
  | { kind: 'refund'; target: number; amount: AmountChoice }
  | { kind: 'refundSplit'; target: number; amount: AmountChoice }
  | { kind: 'secondSplit'; target: number; amount: AmountChoice }
  | { kind: 'fullRefund'; target: number }
  | { kind: 'nextDay' };

const amountChoice: fc.Arbitrary<AmountChoice> = fc.oneof(
  fc.constant({ mode: 'exact' as const }),
  fc.record({ mode: fc.constant('permille' as const), permille: fc.integer({ min: 1, max: 1200 }) }),
  fc.record({ mode: fc.constant('cents' as const), cents: fc.integer({ min: 1, max: 6000 }) }),
);
const target = fc.nat({ max: 1000 });
const captureCommand: fc.Arbitrary<Command> = fc.record({
  kind: fc.constant('capture' as const),
  amount: fc.integer({ min: 50, max: 5000 }),
  splitPermille: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
});
const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: captureCommand, weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('refund' as const), target, amount: amountChoice }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('refundSplit' as const), target, amount: amountChoice }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('secondSplit' as const), target, amount: amountChoice }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('fullRefund' as const), target }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'nextDay' as const }), weight: 1 },
);
/** Batches run one after the other; the commands of a batch are fired together. */
const history = fc.record({
  first: fc.array(captureCommand, { minLength: 1, maxLength: 2 }),
  batches: fc.array(fc.array(command, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
});

/** 2.9% rounded half up, plus 30 cents: the platform's default pricing. */
const feesOf = (amount: number) => Math.floor((amount * 290 + 5_000) / 10_000) + 30;

/** The error codes each operation may answer with, besides 201. */
const allowedErrors: Record<Command['kind'], [number, string][]> = {
  capture: [],
  nextDay: [],
  refund: [
    [400, 'refund_exceeds_amount'],
    [422, 'payment_not_refundable'],
    [422, 'already_refunded'],
  ],
  fullRefund: [
    [400, 'refund_exceeds_amount'],
    [422, 'payment_not_refundable'],
    [422, 'already_refunded'],
  ],
  refundSplit: [
    [400, 'refund_exceeds_amount'],
    [422, 'payment_not_refundable'],
    [422, 'already_refunded'],
    [422, 'payment_has_no_split'],
  ],
  secondSplit: [
    [400, 'invalid_split_amount'],
    [422, 'payment_not_splittable'],
  ],
};

type Run = { creds: Credentials; primary: string; splitPartner: string; third: string; tokenId: string };

async function newRun(): Promise<Run> {
  const creds = await stack.createAccount('Property Platform');
  const [primary, splitPartner, third, tokenId] = await Promise.all([
    createMerchant(stack, creds, { accountName: 'Primary' }),
    createMerchant(stack, creds, { accountName: 'First split partner' }),
    createMerchant(stack, creds, { accountName: 'Second split partner' }),
    createCardToken(stack, creds),
  ]);
  await setMerchantFeatures(stack, primary, { secondSplit: true });
  return { creds, primary, splitPartner, third, tokenId };
}

type ParentFigures = {
  gross: number;
  net: number;
  split: number;
  refunded: number;
  splitRefunded: number;
  secondSplits: number;
};

/** A parent's figures as the rows stand: the amounts still allowed are derived from them for `exact`. */
async function figuresOf(parentId: string): Promise<ParentFigures> {
  const [row] = await stack.sql`
    select p.gross, p.net, coalesce(p.split_amount, 0) as split,
      coalesce(sum(c.amount) filter (where c.payment_type = 'refund' and c.refund_type = 'refund'), 0) as refunded,
      coalesce(sum(c.amount) filter (where c.payment_type = 'refundSplit'), 0) as split_refunded,
      coalesce(sum(c.amount) filter (where c.payment_type = 'secondSplit'), 0) as second_splits
    from payments p left join payments c on c.parent_payment_id = p.id
    where p.id = ${parentId}
    group by p.id`;
  return {
    gross: Number(row!.gross),
    net: Number(row!.net),
    split: Number(row!.split),
    refunded: Number(row!.refunded),
    splitRefunded: Number(row!.split_refunded),
    secondSplits: Number(row!.second_splits),
  };
}

async function amountFor(kind: 'refund' | 'refundSplit' | 'secondSplit', parentId: string, choice: AmountChoice) {
  if (choice.mode === 'cents') return choice.cents;
  const figures = await figuresOf(parentId);
  if (choice.mode === 'permille') return Math.max(1, Math.round((figures.gross * choice.permille) / 1000));
  const remaining =
    kind === 'refund'
      ? figures.gross - figures.split - figures.refunded
      : kind === 'refundSplit'
        ? figures.split - figures.splitRefunded
        : figures.net - figures.secondSplits - figures.refunded - 1; // the largest second split allowed
  return Math.max(1, remaining);
}

const DAY_SECONDS = 86_400;

type Prepared = { description: string; send: () => Promise<ApiResponse> };

/** The request of a command against the payments made before its batch (its amount read from the rows now). */
async function prepare(run: Run, parents: string[], cmd: Command): Promise<Prepared> {
  const payment = (body: unknown): Prepared => ({
    description: JSON.stringify(body),
    send: () => postPayment(stack, run.creds, body),
  });
  const requestId = newRequestId();
  if (cmd.kind === 'nextDay') {
    // Ends the void window of every payment made so far (the account's sandbox clock only).
    const body = { data: { type: 'clock', attributes: { advanceSeconds: DAY_SECONDS } } };
    return { description: 'nextDay', send: () => stack.call('POST', '/sandbox/clock', { as: run.creds, body }) };
  }
  if (cmd.kind === 'capture') {
    const { primary: merchantId, tokenId, splitPartner } = run;
    const amount = String(cmd.amount);
    if (cmd.splitPermille === null) return payment(tokenv3Body({ merchantId, tokenId, amount, requestId }));
    const maxSplit = cmd.amount - feesOf(cmd.amount);
    const splitAmount = String(Math.max(1, Math.floor((maxSplit * cmd.splitPermille) / 1000)));
    return payment(splitBody({ merchantId, tokenId, splitMerchantId: splitPartner, amount, splitAmount, requestId }));
  }
  const parentId = parents[cmd.target % parents.length]!;
  switch (cmd.kind) {
    case 'fullRefund':
      return payment(refundBody(parentId, String((await figuresOf(parentId)).gross), requestId));
    case 'refund':
      return payment(refundBody(parentId, String(await amountFor('refund', parentId, cmd.amount)), requestId));
    case 'refundSplit':
      return payment(
        refundSplitBody(parentId, String(await amountFor('refundSplit', parentId, cmd.amount)), requestId),
      );
    case 'secondSplit': {
      const amount = await amountFor('secondSplit', parentId, cmd.amount);
      return payment(secondSplitBody(parentId, run.third, String(amount), requestId));
    }
  }
}

/** 201 (200 for the clock), or a JSON:API error the operation may answer with; never a 5xx. */
function expectOutcome(cmd: Command, request: Prepared, response: ApiResponse): void {
  const context = `${cmd.kind} ${request.description} → ${response.status} ${JSON.stringify(response.body)}`;
  expect(response.status, context).toBeLessThan(500);
  if (cmd.kind === 'nextDay') {
    expect(response.status, context).toBe(200);
    return;
  }
  if (response.status === 201) {
    expect(response.body?.data?.type, context).toBe('payments');
    return;
  }
  const allowed = allowedErrors[cmd.kind].filter(([status]) => status === response.status);
  const code = response.body?.errors?.[0]?.code;
  const match = allowed.find(([, allowedCode]) => allowedCode === code);
  expect(match, context).toBeDefined();
  expectError(response, match![0], match![1]);
}

async function play(run: Run, commands: { first: Command[]; batches: Command[][] }): Promise<void> {
  const parents: string[] = [];
  for (const batch of [commands.first, ...commands.batches]) {
    const known = [...parents];
    const requests = await Promise.all(batch.map((cmd) => prepare(run, known, cmd)));
    const responses = await Promise.all(requests.map((request) => request.send()));
    batch.forEach((cmd, index) => {
      const response = responses[index]!;
      expectOutcome(cmd, requests[index]!, response);
      if (cmd.kind === 'capture') parents.push(response.body.data.id);
    });
  }
}

async function checkBooks(run: Run): Promise<void> {
  const { accountId } = run.creds;

  // (a) The ledger balances, in total and posting by posting.
  const [total] = await stack.sql`select coalesce(sum(amount), 0)::bigint as sum from ledger_entries`;
  expect(Number(total!.sum)).toBe(0);
  const unbalanced = await stack.sql`
    select posting_id, sum(amount)::bigint as sum from ledger_entries group by posting_id having sum(amount) <> 0`;
  expect(unbalanced).toEqual([]);

  // (b) Each merchant's ledger balance is what the payment records of the run say.
  const merchants = [run.primary, run.splitPartner, run.third];
  const expected = await stack.sql`
    with m(id) as (select unnest(${merchants}::text[])),
    parents as (
      select * from payments
      where account_id = ${accountId} and parent_payment_id is null and payment_type = 'card'
        and status not in ('failed', 'voided')
    ),
    kids as (select * from payments where account_id = ${accountId} and parent_payment_id is not null)
    select m.id,
      coalesce((select sum(net) from parents where merchant_id = m.id), 0)
      + coalesce((select sum(split_amount) from parents where split_merchant_id = m.id), 0)
      - coalesce((select sum(amount) from kids
                  where payment_type = 'refund' and refund_type = 'refund' and merchant_id = m.id), 0)
      - coalesce((select sum(amount) from kids where payment_type = 'refundSplit' and split_merchant_id = m.id), 0)
      - coalesce((select sum(amount) from kids where payment_type = 'secondSplit' and merchant_id = m.id), 0)
      + coalesce((select sum(amount) from kids where payment_type = 'secondSplit' and split_merchant_id = m.id), 0)
      as balance
    from m order by m.id`;
  const ledger = await stack.sql`
    select m.id, coalesce(sum(e.amount), 0) as balance
    from unnest(${merchants}::text[]) as m(id)
    left join ledger_entries e
      on e.ledger_account in ('merchant:' || m.id || ':pending', 'merchant:' || m.id || ':available')
    group by m.id order by m.id`;
  expect(ledger.map(({ id, balance }) => [id, Number(balance)])).toEqual(
    expected.map(({ id, balance }) => [id, Number(balance)]),
  );

  // (c) The operator keeps the fees of the card payments not voided.
  const [fees] = await stack.sql`
    select
      (select coalesce(sum(amount), 0) from ledger_entries
        where account_id = ${accountId} and ledger_account = 'operator:fees') as ledger,
      (select coalesce(sum(gross_minus_net), 0) from payments
        where account_id = ${accountId} and parent_payment_id is null and payment_type = 'card'
          and status not in ('failed', 'voided')) as records`;
  expect(Number(fees!.ledger)).toBe(Number(fees!.records));

  // (d) Nothing is refunded beyond the rules; (e) each parent's status follows from its children.
  const parents = await stack.sql`
    select p.id, p.status, p.gross, coalesce(p.split_amount, 0) as split,
      coalesce(sum(c.amount) filter (where c.payment_type = 'refund' and c.refund_type = 'refund'), 0) as refunded,
      coalesce(sum(c.amount) filter (where c.payment_type = 'refundSplit'), 0) as split_refunded,
      count(c.id) filter (where c.refund_type = 'void') as voids,
      count(c.id) as children
    from payments p left join payments c on c.parent_payment_id = p.id
    where p.account_id = ${accountId} and p.parent_payment_id is null
    group by p.id`;
  for (const row of parents) {
    const [gross, split, refunded, splitRefunded] = [row.gross, row.split, row.refunded, row.split_refunded].map(
      Number,
    ) as [number, number, number, number];
    const context = JSON.stringify(row);
    expect(refunded, context).toBeLessThanOrEqual(gross - split);
    expect(splitRefunded, context).toBeLessThanOrEqual(split);
    if (Number(row.voids) > 0) {
      expect(row.status, context).toBe('voided');
      expect(Number(row.voids), context).toBe(1);
      expect(Number(row.children), context).toBe(1);
    } else if (refunded + splitRefunded === gross) {
      expect(row.status, context).toBe('refunded');
    } else if (refunded + splitRefunded > 0) {
      expect(row.status, context).toBe('partial_refund');
    } else {
      // Untouched by refunds: pending until it settles (nothing settles in this stack).
      expect(['pending', 'completed'], context).toContain(row.status);
    }
  }
}

describe('refunds, voids and splits against the ledger', () => {
  it('keeps the books consistent with the payment records over random histories', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (commands) => {
        const run = await newRun();
        await play(run, commands);
        await checkBooks(run);
      }),
      { numRuns: 20 },
    );
  }, 120_000);
});
