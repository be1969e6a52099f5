import { verifyKeptFigures } from '@pps/shared/ledger';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, personalMerchantAttributes, setMerchantFeatures } from '../fixtures/merchants';
import {
  achBody,
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
import { waitFor } from '../wait';

/**
 * Random sequences of operations over a few merchants (card captures, some with a split, some with the sandbox's
 * dispute cards; partial and full refunds, which are voids inside the void window; split refunds; second splits;
 * ACH debits, some returned by the bank; settlement by the account's sandbox clock, which also opens, expires and
 * decides disputes; evidence, submitted to win or lose, and acceptances; manual payouts, whole or partial; 3-D Secure
 * payments that wait for their cardholder's challenge, answered, failed or abandoned by the clock), some
 * sent together, and after every
 * batch, for every merchant: Σ net of its balance transactions is its pending + available + in-transit ledger
 * balance (the balance GET answers); Σ net of its `available` rows no payout carried, plus what its last payout
 * carried forward, is its available balance; every kept balance is the sum of its ledger entries and every kept list
 * total the count of its rows (`verifyKeptFigures`); each payment's pending rows (with its children's) are what its records
 * hold in pending; nothing is posted for a payment before it is authorized; and every posting of the account sums to
 * zero. Each run has an account and merchants of its own.
 *
 * Payouts come two ways: the `payout` entry (POST /payouts), and the payout run every clock move starts (daily
 * schedules), which files deposits and, on later moves, pays them; the first split partner's bank (ending 5501)
 * returns them, so payout failures come with it. The operations are a table: a further payout operation is one more
 * entry.
 */

let stack: TestStack;

beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
});
afterAll(() => stack?.close());

type Run = {
  creds: Credentials;
  primary: string;
  splitPartner: string;
  third: string;
  /**
   * An ordinary card, the sandbox's two dispute cards (a chargeback, an inquiry, the day after settling), and two
   * 3-D Secure cards that always challenge (the second declined once its challenge is completed).
   */
  tokens: Record<Card, string>;
};
type Card = 'visa' | 'chargeback' | 'inquiry' | 'challenge' | 'declinedAfterChallenge';

async function newRun(): Promise<Run> {
  const creds = await stack.createAccount('Balances Property');
  const [primary, splitPartner, third, visa, chargeback, inquiry, challenge, declinedAfterChallenge] =
    await Promise.all([
      createMerchant(stack, creds, { accountName: 'Primary' }),
      // Its bank returns every deposit (R01): the payout run's failures book payout_failure rows.
      createMerchant(stack, creds, {
        accountName: 'First split partner',
        bankInfo: { ...personalMerchantAttributes().bankInfo, accountNumber: '000000005501' },
      }),
      createMerchant(stack, creds, { accountName: 'Second split partner' }),
      createCardToken(stack, creds),
      createCardToken(stack, creds, '4000000000000259'),
      createCardToken(stack, creds, '4000000000001976'),
      createCardToken(stack, creds, '4000002760003184'),
      createCardToken(stack, creds, '4000008400001629'),
    ]);
  await setMerchantFeatures(stack, primary, { secondSplit: true });
  return {
    creds,
    primary,
    splitPartner,
    third,
    tokens: { visa, chargeback, inquiry, challenge, declinedAfterChallenge },
  };
}

/** What a step knows: the run, and the parent payments made so far (targets of refunds and splits). */
type State = { run: Run; parents: string[] };

/** How a command picks its amount: what the rules still allow (read from the rows), a share of the gross, or cents. */
type AmountChoice = { mode: 'exact' } | { mode: 'permille'; permille: number } | { mode: 'cents'; cents: number };
const amountChoice: fc.Arbitrary<AmountChoice> = fc.oneof(
  fc.constant({ mode: 'exact' as const }),
  fc.record({ mode: fc.constant('permille' as const), permille: fc.integer({ min: 1, max: 1000 }) }),
  fc.record({ mode: fc.constant('cents' as const), cents: fc.integer({ min: 1, max: 3000 }) }),
);
const target = fc.nat({ max: 1000 });

/** 2.9% rounded half up, plus 30 cents: the platform's default pricing. */
const feesOf = (amount: number) => Math.floor((amount * 290 + 5_000) / 10_000) + 30;

async function figuresOf(parentId: string) {
  const [row] = await stack.sql`
    select p.gross, p.net, coalesce(p.split_amount, 0) as split,
      coalesce(sum(c.amount) filter (where c.payment_type = 'refund' and c.refund_type = 'refund'), 0) as refunded,
      coalesce(sum(c.amount) filter (where c.payment_type = 'refundSplit'), 0) as split_refunded,
      coalesce(sum(c.amount) filter (where c.payment_type = 'secondSplit'), 0) as second_splits
    from payments p left join payments c on c.parent_payment_id = p.id
    where p.id = ${parentId}
    group by p.id`;
  const [gross, net, split, refunded, splitRefunded, secondSplits] = [
    row!.gross,
    row!.net,
    row!.split,
    row!.refunded,
    row!.split_refunded,
    row!.second_splits,
  ].map(Number) as [number, number, number, number, number, number];
  return { gross, net, split, refunded, splitRefunded, secondSplits };
}

async function amountFor(kind: 'refund' | 'refundSplit' | 'secondSplit', parentId: string, choice: AmountChoice) {
  if (choice.mode === 'cents') return choice.cents;
  const f = await figuresOf(parentId);
  if (choice.mode === 'permille') return Math.max(1, Math.round((f.gross * choice.permille) / 1000));
  const remaining =
    kind === 'refund'
      ? f.gross - f.split - f.refunded
      : kind === 'refundSplit'
        ? f.split - f.splitRefunded
        : f.net - f.secondSplits - f.refunded - 1; // the largest second split allowed
  return Math.max(1, remaining);
}

const DAY_SECONDS = 86_400;

const ledgerAvailable = async (merchantId: string) =>
  Number(
    (
      await stack.sql`
        select coalesce(sum(amount), 0)::bigint as total from ledger_entries
        where ledger_account = ${`merchant:${merchantId}:available`}`
    )[0]!.total,
  );
const statusesDue = ['pending', 'partial_refund', 'refunded'];

/**
 * Moves the account's clock forward and waits until the settlement pass has taken every record now due. A record a
 * concurrent refund held locked is skipped by that pass (SKIP LOCKED) and left to the scheduled one, a minute away:
 * while some are left, the clock moves on by a second every half second, which enqueues another pass.
 */
async function settle(run: Run, days: number): Promise<ApiResponse> {
  const move = (seconds: number) =>
    stack.call('POST', '/sandbox/clock', {
      as: run.creds,
      body: { data: { type: 'clock', attributes: { advanceSeconds: seconds } } },
    });
  const response = await move(days * DAY_SECONDS);
  let moved = Date.now();
  await waitFor(
    async () => {
      const [row] = await stack.sql`
        select count(*)::int as due from payments p join accounts a on a.id = p.account_id
        where p.account_id = ${run.creds.accountId} and p.settled_at is null and p.settle_at is not null
          and p.status = any(${statusesDue}::text[])
          and p.settle_at <= now() + a.clock_offset_seconds * interval '1 second'`;
      if (row!.due > 0 && Date.now() - moved > 500) {
        await move(1);
        moved = Date.now();
      }
      return row!.due as number;
    },
    { until: (due) => due === 0, what: 'every record due settled', intervalMs: 50 },
  );
  return response;
}

/** One operation: how to draw it, what it sends, which errors it may meet besides success. */
type Operation<C> = {
  arbitrary: fc.Arbitrary<C>;
  weight: number;
  run: (state: State, command: C) => Promise<ApiResponse>;
  /** A parent payment it made, to add to the targets. */
  makesParent?: boolean;
  allowed: [number, string][];
};

const pay = (state: State, body: unknown) => postPayment(stack, state.run.creds, body);
const parentOf = (state: State, index: number) => state.parents[index % state.parents.length]!;
const refundErrors: [number, string][] = [
  [422, 'payment_requires_action'],
  [400, 'refund_exceeds_amount'],
  [422, 'payment_not_refundable'],
  [422, 'already_refunded'],
  [422, 'ach_not_settled'],
  [422, 'payment_disputed'],
];

/** The account's disputes, newest first (the sandbox opens them as the clock passes a day after settlement). */
const disputesOf = async (state: State): Promise<{ id: string }[]> =>
  (await stack.call('GET', '/disputes?limit=100', { as: state.run.creds })).body.data;

const operations = {
  capture: {
    arbitrary: fc.record({
      amount: fc.integer({ min: 50, max: 5000 }),
      splitPermille: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
      card: fc.constantFrom<Card>('visa', 'visa', 'chargeback', 'inquiry'),
    }),
    weight: 4,
    makesParent: true,
    allowed: [],
    run: (state, { amount, splitPermille, card }) => {
      const { primary: merchantId, splitPartner } = state.run;
      const tokenId = state.run.tokens[card];
      const requestId = newRequestId();
      if (splitPermille === null)
        return pay(state, tokenv3Body({ merchantId, tokenId, amount: String(amount), requestId }));
      const splitAmount = Math.max(1, Math.floor(((amount - feesOf(amount)) * splitPermille) / 1000));
      return pay(
        state,
        splitBody({
          merchantId,
          tokenId,
          amount: String(amount),
          splitMerchantId: splitPartner,
          splitAmount: String(splitAmount),
          requestId,
        }),
      );
    },
  } satisfies Operation<{ amount: number; splitPermille: number | null; card: Card }>,
  ach: {
    // 5501–5504: the sandbox bank returns the debit at settlement (R01–R04); other amounts settle.
    arbitrary: fc.oneof(fc.integer({ min: 5501, max: 5504 }), fc.integer({ min: 100, max: 5000 })),
    weight: 2,
    makesParent: true,
    allowed: [],
    run: (state, amount) => pay(state, achBody({ merchantId: state.run.primary, amount: String(amount) })),
  } satisfies Operation<number>,
  refund: {
    arbitrary: fc.record({ target, amount: amountChoice }),
    weight: 3,
    // A `challenged` payment made with `capture: false` is an authorization once answered: it is cancelled whole.
    allowed: [...refundErrors, [400, 'partial_cancel_not_supported']],
    run: async (state, { target, amount }) => {
      const parent = parentOf(state, target);
      return pay(state, refundBody(parent, String(await amountFor('refund', parent, amount)), newRequestId()));
    },
  } satisfies Operation<{ target: number; amount: AmountChoice }>,
  fullRefund: {
    // The whole gross: a void while the payment is voidable, else a refund the rules may refuse.
    arbitrary: target,
    weight: 2,
    allowed: refundErrors,
    run: async (state, target) => {
      const parent = parentOf(state, target);
      return pay(state, refundBody(parent, String((await figuresOf(parent)).gross), newRequestId()));
    },
  } satisfies Operation<number>,
  refundSplit: {
    arbitrary: fc.record({ target, amount: amountChoice }),
    weight: 2,
    allowed: [...refundErrors, [422, 'payment_has_no_split']],
    run: async (state, { target, amount }) => {
      const parent = parentOf(state, target);
      return pay(
        state,
        refundSplitBody(parent, String(await amountFor('refundSplit', parent, amount)), newRequestId()),
      );
    },
  } satisfies Operation<{ target: number; amount: AmountChoice }>,
  secondSplit: {
    arbitrary: fc.record({ target, amount: amountChoice }),
    weight: 2,
    allowed: [
      [400, 'invalid_split_amount'],
      [422, 'payment_requires_action'],
      [422, 'payment_not_splittable'],
      [422, 'payment_not_refundable'],
    ],
    run: async (state, { target, amount }) => {
      const parent = parentOf(state, target);
      const cents = await amountFor('secondSplit', parent, amount);
      return pay(state, secondSplitBody(parent, state.run.third, String(cents), newRequestId()));
    },
  } satisfies Operation<{ target: number; amount: AmountChoice }>,
  payout: {
    // A manual payout of one merchant: its whole available balance, or a part of it (the rest carried forward).
    arbitrary: fc.record({
      merchant: fc.nat({ max: 2 }),
      permille: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
    }),
    weight: 2,
    allowed: [[422, 'insufficient_available_balance']],
    run: async (state, { merchant, permille }) => {
      const merchantId = [state.run.primary, state.run.splitPartner, state.run.third][merchant]!;
      const available = await ledgerAvailable(merchantId);
      const amount = permille === null ? undefined : String(Math.max(1, Math.floor((available * permille) / 1000)));
      const body = { data: { type: 'payouts', requestId: newRequestId(), attributes: { merchantId, amount } } };
      return stack.call('POST', '/payouts', { as: state.run.creds, body });
    },
  } satisfies Operation<{ merchant: number; permille: number | null }>,
  evidence: {
    // Evidence for one of the account's disputes: saved, or submitted to win or lose when the bank answers.
    arbitrary: fc.record({
      target,
      words: fc.constantFrom('winning_evidence', 'losing_evidence', 'a letter'),
      submit: fc.boolean(),
    }),
    weight: 3,
    allowed: [[422, 'dispute_not_open']],
    run: async (state, { target, words, submit }) => {
      const disputes = await disputesOf(state);
      if (disputes.length === 0) return stack.call('GET', '/disputes', { as: state.run.creds });
      const id = disputes[target % disputes.length]!.id;
      const body = { data: { type: 'disputes', attributes: { evidence: { uncategorizedText: words }, submit } } };
      return stack.call('POST', `/disputes/${id}/evidence`, { as: state.run.creds, body });
    },
  } satisfies Operation<{ target: number; words: string; submit: boolean }>,
  acceptDispute: {
    arbitrary: target,
    weight: 1,
    allowed: [[422, 'dispute_not_open']],
    run: async (state, target) => {
      const disputes = await disputesOf(state);
      if (disputes.length === 0) return stack.call('GET', '/disputes', { as: state.run.creds });
      return stack.call('POST', `/disputes/${disputes[target % disputes.length]!.id}/accept`, { as: state.run.creds });
    },
  } satisfies Operation<number>,
  challenged: {
    // A card payment with 3-D Secure whose issuer always challenges: it waits `requires_action`, posting nothing,
    // until `answerChallenge` or the clock (a settle, a day on) ends it.
    arbitrary: fc.record({
      amount: fc.integer({ min: 50, max: 5000 }),
      card: fc.constantFrom<Card>('challenge', 'challenge', 'declinedAfterChallenge'),
      capture: fc.boolean(),
    }),
    weight: 2,
    makesParent: true,
    allowed: [],
    run: (state, { amount, card, capture }) =>
      pay(
        state,
        tokenv3Body({
          merchantId: state.run.primary,
          tokenId: state.run.tokens[card],
          amount: String(amount),
          requestId: newRequestId(),
          attributes: {
            authentication: { mode: 'automatic', returnUrl: 'https://shop.example.com/done' },
            ...(capture ? {} : { capture: false }),
          },
        }),
      ),
  } satisfies Operation<{ amount: number; card: Card; capture: boolean }>,
  answerChallenge: {
    // The cardholder's answer to one of the waiting payments' challenges, as the hosted page sends it.
    arbitrary: fc.record({ target, outcome: fc.constantFrom('completed', 'completed', 'failed') }),
    weight: 3,
    allowed: [
      [410, 'challenge_expired'],
      [422, 'payment_not_awaiting_authentication'],
    ],
    run: async (state, { target, outcome }) => {
      const waiting = await stack.sql`
        select id, next_action from payments
        where account_id = ${state.run.creds.accountId} and status = 'requires_action' order by id`;
      if (waiting.length === 0) return stack.call('GET', '/payments?limit=1', { as: state.run.creds });
      const row = waiting[target % waiting.length]!;
      const token = new URL((row.next_action as { url: string }).url).searchParams.get('token');
      const body = { data: { type: 'authentications', attributes: { token, outcome } } };
      return stack.call('POST', `/payments/${row.id}/authentication`, { as: state.run.creds, body });
    },
  } satisfies Operation<{ target: number; outcome: string }>,
  // payoutFailure joins here once the payout run files and returns deposits (a bank account ending 5501).
  settle: {
    // Past the void window, and 1–4 days on: cards settle after one business day, ACH after three; now and then
    // 10 days, past a dispute's dueBy (7 business days), so unanswered disputes are lost.
    arbitrary: fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 4 },
      { arbitrary: fc.constant(10), weight: 1 },
    ),
    weight: 3,
    allowed: [],
    run: (state, days) => settle(state.run, days),
  } satisfies Operation<number>,
};

type OperationName = keyof typeof operations;
type Step = { [K in OperationName]: { kind: K; command: Parameters<(typeof operations)[K]['run']>[1] } }[OperationName];

const needsParent = (kind: OperationName) =>
  !['capture', 'ach', 'settle', 'payout', 'evidence', 'acceptDispute', 'challenged', 'answerChallenge'].includes(kind);

const step: fc.Arbitrary<Step> = fc.oneof(
  ...(Object.entries(operations) as [OperationName, Operation<unknown>][]).map(([kind, operation]) => ({
    arbitrary: operation.arbitrary.map((command) => ({ kind, command }) as Step),
    weight: operation.weight,
  })),
);
/**
 * Batches of steps, run one after the other; the steps of a batch are sent together (a refund racing the settlement
 * pass its clock move starts, two refunds of one parent). A few payments come first, one of them with the chargeback
 * card, so most steps have a target and most histories a dispute once the clock has moved.
 */
const history: fc.Arbitrary<Step[][]> = fc
  .tuple(
    fc.array(
      fc.oneof(
        operations.capture.arbitrary.map((command) => ({ kind: 'capture', command }) as Step),
        operations.ach.arbitrary.map((command) => ({ kind: 'ach', command }) as Step),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 4, maxLength: 14 }),
    operations.capture.arbitrary.map(
      (command) => ({ kind: 'capture', command: { ...command, card: 'chargeback' } }) as Step,
    ),
  )
  .map(([first, batches, disputed]) => [[...first, disputed], ...batches]);

/** 2xx, or an error the operation may answer with; never a 5xx. */
function expectOutcome(kind: OperationName, response: ApiResponse, context: string): void {
  expect(response.status, context).toBeLessThan(500);
  if (response.status === 200 || response.status === 201) return;
  const code = response.body?.errors?.[0]?.code;
  const match = operations[kind].allowed.find(([status, allowed]) => status === response.status && allowed === code);
  expect(match, context).toBeDefined();
  expectError(response, match![0], match![1]);
}

/** A merchant's balances as the ledger holds them. */
async function ledgerBalances(id: string) {
  const [row] = await stack.sql`
    select coalesce(sum(amount) filter (where ledger_account = ${`merchant:${id}:pending`}), 0)::text as pending,
      coalesce(sum(amount) filter (where ledger_account = ${`merchant:${id}:available`}), 0)::text as available,
      coalesce(sum(amount) filter (where ledger_account = ${`merchant:${id}:in_transit`}), 0)::text as in_transit
    from ledger_entries where ledger_account like ${`merchant:${id}:%`}`;
  return { currency: 'USD', pending: row!.pending, available: row!.available, inTransit: row!.in_transit };
}

/**
 * The identities of every merchant of the run, and of every posting of its account, read in one snapshot: the
 * payout run a clock move starts may commit between two statements. Then the balance GET answers what the ledger
 * holds (read again until both reads fall between two of its commits).
 */
async function checkBalances(run: Run, context: string): Promise<void> {
  const merchants = [run.primary, run.splitPartner, run.third];
  const [unbalanced, rows, families] = await stack.sql.begin('isolation level repeatable read read only', (sql) => [
    sql`
      select posting_id, sum(amount)::bigint as sum from ledger_entries
      where account_id = ${run.creds.accountId} group by posting_id having sum(amount) <> 0`,
    sql`
      select m.id,
        (select coalesce(sum(bt.net), 0) from balance_transactions bt where bt.merchant_id = m.id)::bigint as net,
        (select coalesce(sum(bt.net), 0) from balance_transactions bt
          where bt.merchant_id = m.id and bt.status = 'available' and bt.payout_id is null)::bigint
          + coalesce((select p.carried_forward from payouts p where p.merchant_id = m.id
                      order by p.created_at desc, p.id desc limit 1), 0)::bigint as available_net,
        (select coalesce(sum(e.amount), 0) from ledger_entries e
          where e.ledger_account in ('merchant:' || m.id || ':pending', 'merchant:' || m.id || ':available',
            'merchant:' || m.id || ':in_transit'))::bigint as ledger_total,
        (select coalesce(sum(e.amount), 0) from ledger_entries e
          where e.ledger_account = 'merchant:' || m.id || ':available')::bigint as ledger_available
      from unnest(${merchants}::text[]) as m(id)`,
    // Per payment and its children, per merchant: what its pending rows say against what its records hold in
    // pending, so a row turned available for the wrong record shows even when the merchant's sums agree.
    sql`
      with family as (
        select id, coalesce(parent_payment_id, id) as family from payments where account_id = ${run.creds.accountId}
      ),
      said as (
        select f.family, bt.merchant_id, sum(bt.net) filter (where bt.status = 'pending') as pending
        from balance_transactions bt join family f on f.id = bt.source_id group by 1, 2
      ),
      held as (
        select f.family, split_part(e.ledger_account, ':', 2) as merchant_id, sum(e.amount) as pending
        from ledger_entries e join family f on f.id = e.payment_id
        where e.ledger_account like 'merchant:%:pending' group by 1, 2
      )
      select coalesce(said.family, held.family) as family, coalesce(said.merchant_id, held.merchant_id) as merchant,
        coalesce(said.pending, 0)::bigint as said, coalesce(held.pending, 0)::bigint as held
      from said full join held on held.family = said.family and held.merchant_id = said.merchant_id
      where coalesce(said.pending, 0) <> coalesce(held.pending, 0)`,
  ]);
  expect(families, `pending rows per payment = its pending ledger entries: ${context}`).toEqual([]);
  // 3-D Secure: nothing is posted before a payment is authorized, so nothing for one that waits, failed its
  // challenge, was abandoned, or was declined after it.
  const postedUnauthorized = await stack.sql`
    select p.id, p.status, p.code from payments p
    where p.account_id = ${run.creds.accountId} and p.three_d_secure is not null
      and p.status in ('requires_action', 'processing', 'failed')
      and exists (select 1 from ledger_entries e where e.payment_id = p.id)
    union all
    select p.id, p.status, p.code from payments p
    where p.account_id = ${run.creds.accountId} and p.void_reason = 'authentication_abandoned'
      and exists (select 1 from ledger_entries e where e.payment_id = p.id)`;
  expect(postedUnauthorized, `nothing posted before authorization: ${context}`).toEqual([]);
  // Nothing charged back twice: one dispute per payment, one withdrawal per chargeback, one reinstatement per won
  // one, none for an inquiry; and what each payment row says its disputes took is what they took.
  const disputes = await stack.sql`
    select d.id, d.payment_id, d.phase, d.status, d.amount, d.withdrawn,
      (select count(distinct posting_id) from ledger_entries e where e.payment_id = d.id and e.kind = 'dispute')::int
        as withdrawals,
      (select count(distinct posting_id) from ledger_entries e
        where e.payment_id = d.id and e.kind = 'dispute_reversal')::int as reinstatements,
      (select (mark->>'withdrawn')::bigint from payments p, jsonb_array_elements(p.disputes) as mark
        where p.id = d.payment_id and mark->>'id' = d.id) as marked
    from disputes d where d.account_id = ${run.creds.accountId}`;
  expect(new Set(disputes.map((d) => d.payment_id)).size, context).toBe(disputes.length);
  for (const d of disputes) {
    const chargeback = d.phase === 'chargeback';
    const where = `${context}; dispute ${JSON.stringify(d)}`;
    expect(d.withdrawals, where).toBe(chargeback ? 1 : 0);
    expect(d.reinstatements, where).toBe(chargeback && d.status === 'won' ? 1 : 0);
    const withdrawn = chargeback && d.status !== 'won' ? Number(d.amount) : 0;
    expect([Number(d.withdrawn), Number(d.marked)], where).toEqual([withdrawn, withdrawn]);
  }
  // Every kept balance (merchants', `operator:fees`, `external:*`) is the sum of its entries, and every kept list
  // total the count of its rows, whatever ran at once: the balance GET below reads the kept ones.
  expect((await verifyKeptFigures(stack.db)).differences, context).toEqual([]);
  expect(unbalanced, context).toEqual([]);
  for (const row of rows) {
    const where = `${context}; merchant ${row.id} ${JSON.stringify(row)}`;
    expect(Number(row.net), `Σ net = pending + available + in transit: ${where}`).toBe(Number(row.ledger_total));
    expect(Number(row.available_net), `Σ net of uncarried available rows + carried forward = available: ${where}`).toBe(
      Number(row.ledger_available),
    );
  }
  for (const id of merchants) {
    await waitFor(
      async () => {
        const response = await stack.call('GET', `/merchants/${id}/balance`, { as: run.creds });
        expect(response.status, context).toBe(200);
        return JSON.stringify(response.body.data.attributes) === JSON.stringify(await ledgerBalances(id));
      },
      { what: `the balance of ${id} as the ledger holds it`, timeoutMs: 3000, intervalMs: 50 },
    );
  }
}

describe('balance transactions against the ledger', () => {
  it('Σ net equals the balances, and the available rows the available balance, after every batch', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (steps) => {
        const state: State = { run: await newRun(), parents: [] };
        const done: string[] = [];
        for (const batch of steps) {
          const runnable = batch.filter(({ kind }) => !needsParent(kind) || state.parents.length > 0);
          const responses = await Promise.all(
            runnable.map(({ kind, command }) => (operations[kind] as Operation<unknown>).run(state, command)),
          );
          runnable.forEach(({ kind, command }, index) => {
            const response = responses[index]!;
            const code = response.body?.errors?.[0]?.code ?? '';
            done.push(`${batch.length > 1 ? '+ ' : ''}${kind} ${JSON.stringify(command)} → ${response.status} ${code}`);
          });
          const context = done.join('\n');
          runnable.forEach(({ kind }, index) => {
            const response = responses[index]!;
            expectOutcome(kind, response, context);
            if ((operations[kind] as Operation<unknown>).makesParent && response.status === 201)
              state.parents.push(response.body.data.id);
          });
          await checkBalances(state.run, context);
        }
      }),
      // Every run makes an account of its own, so shrinking would outlast the budget: the first failure is reported
      // as found, with the history it played in the assertion's message.
      { numRuns: 25, endOnFailure: true },
    );
  }, 60_000);
});
