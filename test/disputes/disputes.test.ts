import { createDataCipher, runDisputes, SandboxProcessor } from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import { pacificDate, settleAtFor } from '@pps/shared/clock';
import { verifyKeptFigures } from '@pps/shared/ledger';
import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { createCardToken, createPayment, postPayment, refundBody, setClock, tokenv3Body } from '../fixtures/payments';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * Disputes through the API, over the sandbox's dispute cards (docs/api.md, Disputes): a chargeback opened the
 * business day after its payment settled, its money taken back with the fee and, when won, returned; an inquiry
 * that moves no money; evidence, submission, acceptance and expiry, each by the account's sandbox clock; and every
 * error path with its status, code and pointer, and that it changed nothing. The passes are run here, one after
 * another (`runSettlementPass`, `runDisputes`), as the settlement worker runs them after a clock moves.
 */
const CHARGEBACK_CARD = '4000000000000259';
const INQUIRY_CARD = '4000000000001976';
const AMOUNT = 10_000;
const FEE = 1_500;

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
const log = createLogger({ level: 'silent' });

/** The sandbox, whose evidence submissions wait while `hold` is set: a slow bank, as a test needs one. */
class HeldBank extends SandboxProcessor {
  hold: Promise<void> | undefined;
  asked = 0;
  override async submitDisputeEvidence(input: Parameters<SandboxProcessor['submitDisputeEvidence']>[0]) {
    this.asked += 1;
    await this.hold;
    return super.submitDisputeEvidence(input);
  }
}
let bank: HeldBank;

beforeAll(async () => {
  // The bank needs the stack's database, and the stack its processor: the stack gets a stand-in that is the bank.
  stack = await createTestStack({
    processor: new Proxy({} as HeldBank, {
      get: (_, name) => {
        const value = Reflect.get(bank, name);
        return typeof value === 'function' ? value.bind(bank) : value;
      },
    }),
  });
  bank = new HeldBank({ db: stack.db });
  [creds, other] = await Promise.all([stack.createAccount('Disputed Platform'), stack.createAccount('Other')]);
  merchantId = await createMerchant(stack, creds);
});
afterAll(() => stack?.close());

const deps = () => ({
  db: stack.db,
  config: stack.config,
  cipher: createDataCipher(stack.config),
  processor: new SandboxProcessor({ db: stack.db }),
  log,
});

/** What the settlement worker does when the clock moves: settle what is due, then the disputes. */
async function pass(accountId: string) {
  await runSettlementPass(deps(), { now: new Date(), batchSize: 100, accountId });
  return runDisputes(deps(), { now: new Date(), accountId });
}

const get = (path: string, as: Credentials = creds) => stack.call('GET', path, { as });
const post = (path: string, body?: unknown, as: Credentials = creds) => stack.call('POST', path, { as, body });
const evidenceBody = (attributes: Record<string, unknown>) => ({ data: { type: 'disputes', attributes } });

const accountNow = async (accountId: string) => {
  const [row] = await stack.sql`select clock_offset_seconds from accounts where id = ${accountId}`;
  return new Date(Date.now() + Number(row!.clock_offset_seconds) * 1000);
};
const moveClock = async (as: Credentials, to: Date) => {
  if (to.getTime() > (await accountNow(as.accountId)).getTime()) await setClock(stack, as, to);
};

/** A settled payment of `card`, its dispute opened by the clock: the dispute's id and the payment's. */
async function disputedPayment(card: string, as: Credentials = creds, merchant = merchantId) {
  const tokenId = await createCardToken(stack, as, card);
  const paid = await createPayment(stack, as, tokenv3Body({ merchantId: merchant, tokenId, amount: String(AMOUNT) }));
  const paymentId: string = paid.body.data.id;
  await moveClock(as, new Date(new Date(paid.body.data.attributes.settleAt).getTime() + 1000));
  await pass(as.accountId);
  const [settled] = await stack.sql`select settled_at from payments where id = ${paymentId}`;
  await moveClock(as, new Date(settleAtFor(new Date(settled!.settled_at), 1).getTime() + 1000));
  const moved = await pass(as.accountId);
  expect(moved.opened).toBe(1);
  const listed = await get(`/disputes?paymentId=${paymentId}`, as);
  expect(listed.status).toBe(200);
  expect(listed.body.data).toHaveLength(1);
  return { paymentId, disputeId: listed.body.data[0].id as string, dispute: listed.body.data[0] };
}

/**
 * An account of its own whose merchant took `count` payments of the chargeback card, settled, with its clock on the
 * day the network disputes them: the next dispute run opens all of them.
 */
async function chargebacksToDispute(name: string, count: number) {
  const as = await stack.createAccount(name);
  const merchant = await createMerchant(stack, as);
  const tokenId = await createCardToken(stack, as, CHARGEBACK_CARD);
  let settleAt = 0;
  for (let n = 0; n < count; n++) {
    const paid = await createPayment(stack, as, tokenv3Body({ merchantId: merchant, tokenId, amount: String(AMOUNT) }));
    settleAt = Math.max(settleAt, new Date(paid.body.data.attributes.settleAt).getTime());
  }
  await moveClock(as, new Date(settleAt + 1000));
  await runSettlementPass(deps(), { now: new Date(), batchSize: 100, accountId: as.accountId });
  const [settled] = await stack.sql`select max(settled_at) as at from payments where merchant_id = ${merchant}`;
  await moveClock(as, new Date(settleAtFor(new Date(settled!.at), 1).getTime() + 1000));
  return { as, merchant };
}

const balance = async (merchant = merchantId) =>
  (await get(`/merchants/${merchant}/balance`)).body.data.attributes as { available: string; pending: string };
const transactions = async (merchant = merchantId) =>
  ((await get(`/merchants/${merchant}/balance-transactions?limit=100`)).body.data as { attributes: any }[]).map(
    ({ attributes: a }) => [a.type, Number(a.amount), Number(a.fee), Number(a.net), a.sourceId],
  );
const eventsOf = async (id: string) => {
  const rows = await stack.sql`
    select type, payload #>> '{data,previousStatus}' as previous from events where resource_id = ${id}
    order by sequence`;
  return rows.map((row) => [row.type, row.previous]);
};

describe('a chargeback', () => {
  let paymentId: string;
  let disputeId: string;
  let availableBefore: number;

  it('opens the business day after its payment settled, taking the amount and the fee from available', async () => {
    const opened = await disputedPayment(CHARGEBACK_CARD);
    ({ paymentId, disputeId } = opened);
    expect(opened.dispute).toMatchObject({
      type: 'disputes',
      attributes: {
        paymentId,
        merchantId,
        amount: String(AMOUNT),
        currency: 'USD',
        reason: 'fraudulent',
        networkReasonCode: '10.4',
        phase: 'chargeback',
        status: 'needs_response',
        evidence: {},
        evidenceDetails: { submissionCount: 0, submittedAt: null, pastDue: false },
        closedAt: null,
      },
    });
    expect(disputeId).toMatch(/^dp_/);
    const rows = await transactions();
    expect(rows[0]).toEqual(['dispute', -AMOUNT, FEE, -(AMOUNT + FEE), disputeId]);
    const payment = (await get(`/payments/${paymentId}`)).body.data.attributes;
    expect(payment).toMatchObject({ disputed: true, disputes: [disputeId], refundableAmount: '0' });
    availableBefore = Number((await balance()).available);
    expect(await eventsOf(disputeId)).toEqual([
      ['dispute.created', null],
      ['dispute.funds_withdrawn', null],
    ]);
  });

  it('refuses a refund of money the chargeback took back: 422 payment_disputed, and nothing changes', async () => {
    const before = await stack.sql`select count(*)::int as n from payments where parent_payment_id = ${paymentId}`;
    const refused = await postPayment(stack, creds, refundBody(paymentId, '100'));
    expect(expectError(refused, 422, 'payment_disputed', '/data/attributes/transaction/amount').detail).toContain(
      `${AMOUNT} cents were taken back`,
    );
    const after = await stack.sql`select count(*)::int as n from payments where parent_payment_id = ${paymentId}`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('saves evidence without submitting it, then submits it: under review', async () => {
    const saved = await post(
      `/disputes/${disputeId}/evidence`,
      evidenceBody({ evidence: { productDescription: 'A blue teapot', uncategorizedText: 'winning_evidence' } }),
    );
    expect(saved.status).toBe(200);
    expect(saved.body.data.attributes).toMatchObject({
      status: 'needs_response',
      evidence: { productDescription: 'A blue teapot', uncategorizedText: 'winning_evidence' },
      evidenceDetails: { submissionCount: 0 },
    });
    const submitted = await post(
      `/disputes/${disputeId}/evidence`,
      evidenceBody({ evidence: { customerName: 'Jane Doe' }, submit: true }),
    );
    expect(submitted.status).toBe(200);
    expect(submitted.body.data.attributes).toMatchObject({
      status: 'under_review',
      evidence: {
        productDescription: 'A blue teapot',
        customerName: 'Jane Doe',
        uncategorizedText: 'winning_evidence',
      },
      evidenceDetails: { submissionCount: 1, pastDue: false },
    });
    expect(submitted.body.data.attributes.evidenceDetails.submittedAt).not.toBeNull();
  });

  it('refuses more evidence once submitted, and an acceptance: 422 dispute_not_open, nothing changed', async () => {
    const before = (await get(`/disputes/${disputeId}`)).body.data;
    const more = await post(`/disputes/${disputeId}/evidence`, evidenceBody({ evidence: { refundPolicy: 'none' } }));
    expectError(more, 422, 'dispute_not_open', '/data/attributes/evidence');
    const resubmit = await post(`/disputes/${disputeId}/evidence`, evidenceBody({ submit: true }));
    expectError(resubmit, 422, 'dispute_not_open', '/data/attributes/submit');
    const accept = await post(`/disputes/${disputeId}/accept`);
    expect(expectError(accept, 422, 'dispute_not_open').source).toBeUndefined();
    expect((await get(`/disputes/${disputeId}`)).body.data).toEqual(before);
  });

  it('is won when the bank answers, two business days on: the amount comes back, the fee is kept', async () => {
    const [row] = await stack.sql`select decided_at from disputes where id = ${disputeId}`;
    expect(await pass(creds.accountId)).toMatchObject({ decided: 0 });
    await moveClock(creds, new Date(new Date(row!.decided_at).getTime() + 1000));
    expect(await pass(creds.accountId)).toMatchObject({ decided: 1 });
    const won = (await get(`/disputes/${disputeId}`)).body.data.attributes;
    expect(won).toMatchObject({ status: 'won' });
    expect(won.closedAt).not.toBeNull();
    expect((await transactions())[0]).toEqual(['dispute_reversal', AMOUNT, 0, AMOUNT, disputeId]);
    expect(Number((await balance()).available)).toBe(availableBefore + AMOUNT);
    const payment = (await get(`/payments/${paymentId}`)).body.data.attributes;
    expect(payment).toMatchObject({ disputed: true, disputes: [disputeId] });
    expect(Number(payment.refundableAmount)).toBeGreaterThan(0);
    expect(await eventsOf(disputeId)).toEqual([
      ['dispute.created', null],
      ['dispute.funds_withdrawn', null],
      ['dispute.updated', null],
      ['dispute.updated', 'needs_response'],
      ['dispute.closed', 'under_review'],
      ['dispute.funds_reinstated', 'under_review'],
    ]);
    expect(await pass(creds.accountId)).toEqual({ opened: 0, expired: 0, decided: 0 });
    // The settlement report shows them on the days they moved money: taken back, its fee, and given back.
    const [days] = await stack.sql`select created_at, closed_at from disputes where id = ${disputeId}`;
    const range = `startDate=${pacificDate(new Date(days!.created_at))}&endDate=${pacificDate(new Date(days!.closed_at))}`;
    const reported = (await get(`/reports/settlement?${range}`)).body.data.attributes.merchants;
    expect(reported.find((item: { merchantId: string }) => item.merchantId === merchantId)).toMatchObject({
      disputed: String(AMOUNT),
      disputeFees: String(FEE),
      reinstated: String(AMOUNT),
    });
  });
});

describe('the other outcomes', () => {
  it('is lost on losing evidence: the money stays with the cardholder', async () => {
    const { disputeId } = await disputedPayment(CHARGEBACK_CARD);
    const before = Number((await balance()).available);
    await post(
      `/disputes/${disputeId}/evidence`,
      evidenceBody({ evidence: { uncategorizedText: 'losing_evidence' }, submit: true }),
    );
    const [row] = await stack.sql`select decided_at from disputes where id = ${disputeId}`;
    await moveClock(creds, new Date(new Date(row!.decided_at).getTime() + 1000));
    expect(await pass(creds.accountId)).toMatchObject({ decided: 1 });
    expect((await get(`/disputes/${disputeId}`)).body.data.attributes.status).toBe('lost');
    expect(Number((await balance()).available)).toBe(before);
  });

  it('is lost when accepted, at once; a second acceptance is a 422', async () => {
    const { disputeId } = await disputedPayment(CHARGEBACK_CARD);
    const accepted = await post(`/disputes/${disputeId}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.attributes).toMatchObject({ status: 'lost' });
    expect(await eventsOf(disputeId)).toContainEqual(['dispute.closed', 'needs_response']);
    expectError(await post(`/disputes/${disputeId}/accept`), 422, 'dispute_not_open');
  });

  it('past dueBy takes no evidence (pastDue), and the run then loses it', async () => {
    const { disputeId } = await disputedPayment(CHARGEBACK_CARD);
    const [row] = await stack.sql`select due_by from disputes where id = ${disputeId}`;
    await moveClock(creds, new Date(new Date(row!.due_by).getTime() + 1000));
    const late = await post(`/disputes/${disputeId}/evidence`, evidenceBody({ evidence: { customerName: 'J' } }));
    expect(expectError(late, 422, 'dispute_not_open', '/data/attributes/evidence').detail).toContain('was due by');
    const shown = (await get(`/disputes/${disputeId}`)).body.data.attributes;
    expect(shown).toMatchObject({ status: 'needs_response', evidence: {}, evidenceDetails: { pastDue: true } });
    expect(await pass(creds.accountId)).toMatchObject({ expired: 1 });
    expect((await get(`/disputes/${disputeId}`)).body.data.attributes.status).toBe('lost');
  });

  it('an inquiry moves no money, whatever its outcome', async () => {
    const { disputeId, dispute, paymentId } = await disputedPayment(INQUIRY_CARD);
    expect(dispute.attributes).toMatchObject({ phase: 'inquiry', reason: 'general', status: 'needs_response' });
    const afterOpen = Number((await balance()).available);
    expect((await transactions()).some(([, , , , source]) => source === disputeId)).toBe(false);
    expect(await eventsOf(disputeId)).toEqual([['dispute.created', null]]);
    const payment = (await get(`/payments/${paymentId}`)).body.data.attributes;
    expect(payment).toMatchObject({ disputed: true, disputes: [disputeId] });
    expect(Number(payment.refundableAmount)).toBeGreaterThan(0);
    const accepted = await post(`/disputes/${disputeId}/accept`);
    expect(accepted.body.data.attributes.status).toBe('lost');
    expect(Number((await balance()).available)).toBe(afterOpen);
  });
});

describe('errors', () => {
  let disputeId: string;
  beforeAll(async () => {
    ({ disputeId } = await disputedPayment(CHARGEBACK_CARD));
  });

  it("answers 404 for another account's dispute, as for an unknown one, and changes nothing", async () => {
    const before = (await get(`/disputes/${disputeId}`)).body.data;
    for (const response of [
      await get(`/disputes/${disputeId}`, other),
      await post(`/disputes/${disputeId}/evidence`, evidenceBody({ evidence: { customerName: 'x' } }), other),
      await post(`/disputes/${disputeId}/accept`, undefined, other),
      await get('/disputes/dp_unknown'),
    ]) {
      expectError(response, 404, 'dispute_not_found');
    }
    expect((await get('/disputes', other)).body.data).toEqual([]);
    expect((await get(`/disputes/${disputeId}`)).body.data).toEqual(before);
  });

  it('refuses a field over 20,000 characters or an unknown one with a 400 naming it, and saves nothing', async () => {
    const long = await post(
      `/disputes/${disputeId}/evidence`,
      evidenceBody({ evidence: { customerName: 'ok', uncategorizedText: 'x'.repeat(20_001) } }),
    );
    expectError(long, 400, 'invalid_field', '/data/attributes/evidence/uncategorizedText');
    const unknown = await post(`/disputes/${disputeId}/evidence`, evidenceBody({ evidence: { photo: 'x' } }));
    expect(unknown.status).toBe(400);
    const shown = (await get(`/disputes/${disputeId}`)).body.data.attributes;
    expect(shown.evidence).toEqual({});
  });

  it('lists by merchant, payment and status, with 400/403 for an unknown or foreign filter', async () => {
    const all = await get('/disputes?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.meta.total).toBe(all.body.data.length);
    const open = await get('/disputes?status=needs_response&limit=100');
    expect(open.body.data.every((item: any) => item.attributes.status === 'needs_response')).toBe(true);
    expect(open.body.meta.total).toBe(open.body.data.length);
    expect((await get(`/disputes?merchantId=${merchantId}&limit=100`)).body.meta.total).toBe(all.body.meta.total);
    expectError(await get('/disputes?merchantId=mer_unknown'), 400, 'merchant_not_found');
    const foreign = await createMerchant(stack, other);
    expectError(await get(`/disputes?merchantId=${foreign}`), 403, 'merchant_forbidden');
    expectError(await get('/disputes?paymentId=pay_unknown'), 400, 'payment_not_found');
    expectError(await get('/disputes?disputeId=1'), 400, 'unknown_parameter');
    const yearZero = expectError(await get('/disputes?startDate=0000-01-01'), 400, 'invalid_field');
    expect(yearZero.source).toEqual({ parameter: 'startDate' });
    const first = await get('/disputes?limit=1');
    const next = await get(`/disputes?limit=1&startingAfter=${first.body.data[0].id}`);
    expect(next.body.data[0].id).not.toBe(first.body.data[0].id);
  });

  it('keeps every posting balanced and every kept figure equal to its rows', async () => {
    expect((await verifyKeptFigures(stack.db)).differences).toEqual([]);
    const unbalanced = await stack.sql`
      select posting_id from ledger_entries group by posting_id having sum(amount) <> 0`;
    expect(unbalanced).toEqual([]);
  });
});

describe('two runs at once', () => {
  it('store each network dispute once, and take its money once', async () => {
    const tokenId = await createCardToken(stack, creds, CHARGEBACK_CARD);
    const paid = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: String(AMOUNT) }));
    await moveClock(creds, new Date(new Date(paid.body.data.attributes.settleAt).getTime() + 1000));
    await runSettlementPass(deps(), { now: new Date(), batchSize: 100, accountId: creds.accountId });
    const [settled] = await stack.sql`select settled_at from payments where id = ${paid.body.data.id}`;
    await moveClock(creds, new Date(settleAtFor(new Date(settled!.settled_at), 1).getTime() + 1000));
    const runs = await Promise.all([
      runDisputes(deps(), { now: new Date(), accountId: creds.accountId }),
      runDisputes(deps(), { now: new Date() }),
      runDisputes(deps(), { now: new Date(), accountId: creds.accountId }),
    ]);
    expect(runs.reduce((sum, run) => sum + run.opened, 0)).toBe(1);
    const stored = await stack.sql`select id from disputes where payment_id = ${paid.body.data.id}`;
    expect(stored).toHaveLength(1);
    const postings = await stack.sql`
      select count(distinct posting_id)::int as n from ledger_entries where payment_id = ${stored[0]!.id}`;
    expect(postings[0]!.n).toBe(1);
  });
});

describe('a run storing several disputes at a time when the database goes away', () => {
  it('stops with its error once those under way end; the next run stores the rest, each once', async () => {
    const { as, merchant } = await chargebacksToDispute('Disputes, database gone', 8);
    // The third transaction the run begins finds the database gone; the run has begun four by then.
    const gone = Object.assign(new Error('the connection closed'), { code: 'CONNECTION_CLOSED' });
    let begun = 0;
    const db = new Proxy(stack.db, {
      get(target, name, receiver) {
        if (name !== 'transaction') return Reflect.get(target, name, receiver);
        return (fn: Parameters<typeof target.transaction>[0]) => {
          begun += 1;
          return begun === 3 ? Promise.reject(gone) : target.transaction(fn);
        };
      },
    });
    await expect(runDisputes({ ...deps(), db }, { now: new Date(), accountId: as.accountId })).rejects.toBe(gone);
    expect(begun).toBe(4);
    const stored = async () =>
      Number((await stack.sql`select count(*)::int as n from disputes where merchant_id = ${merchant}`)[0]!.n);
    expect(await stored()).toBe(3);

    const next = await runDisputes(deps(), { now: new Date(), accountId: as.accountId });
    expect(next.opened).toBe(5);
    const [once] = await stack.sql`
      select count(*)::int as disputes, count(distinct payment_id)::int as payments
      from disputes where merchant_id = ${merchant}`;
    expect(once).toEqual({ disputes: 8, payments: 8 });
    expect((await verifyKeptFigures(stack.db)).differences).toEqual([]);
  });
});

describe('a network dispute the platform cannot store', () => {
  it('is logged and skipped: the others are stored', async () => {
    class NamingUnknownPayments extends SandboxProcessor {
      override async disputes(query: { accountId?: string; now: Date }) {
        const unknown = { networkId: `sbx_dp_unknown_${Date.now()}`, paymentId: 'pay_unknown' };
        const real = await super.disputes(query);
        return [{ ...real[0]!, ...unknown }, ...real];
      }
    }
    const tokenId = await createCardToken(stack, creds, CHARGEBACK_CARD);
    const paid = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: String(AMOUNT) }));
    await moveClock(creds, new Date(new Date(paid.body.data.attributes.settleAt).getTime() + 1000));
    await runSettlementPass(deps(), { now: new Date(), batchSize: 100, accountId: creds.accountId });
    const [settled] = await stack.sql`select settled_at from payments where id = ${paid.body.data.id}`;
    await moveClock(creds, new Date(settleAtFor(new Date(settled!.settled_at), 1).getTime() + 1000));
    const run = await runDisputes(
      { ...deps(), processor: new NamingUnknownPayments({ db: stack.db }) },
      { now: new Date(), accountId: creds.accountId },
    );
    expect(run.opened).toBe(1);
    expect(await stack.sql`select 1 from disputes where payment_id = ${paid.body.data.id}`).toHaveLength(1);
    expect(await stack.sql`select 1 from disputes where payment_id = 'pay_unknown'`).toHaveLength(0);
  });
});

describe('due disputes a run cannot move', () => {
  it('are read once a run: the run ends, and moves those behind them', async () => {
    // Settled together, then disputed together: one run opens all three.
    const { as: owner, merchant } = await chargebacksToDispute('Stuck disputes', 3);
    expect(await pass(owner.accountId)).toMatchObject({ opened: 3 });
    const ids = (await stack.sql`select id from disputes where merchant_id = ${merchant} order by id`).map(
      (row) => row.id as string,
    );
    for (const id of ids) {
      const submitted = await post(
        `/disputes/${id}/evidence`,
        evidenceBody({ evidence: { uncategorizedText: 'losing_evidence' }, submit: true }),
        owner,
      );
      expect(submitted.body.data.attributes.status).toBe('under_review');
    }
    // Decided an hour ago in this order; the first two hold a decision no move takes (no outcome): rows as no code
    // writes them, which a run must still get past.
    for (const [n, id] of ids.entries()) {
      await stack.sql`
        update disputes set decided_at = now() - interval '1 hour' + ${n} * interval '1 second',
          outcome = ${n < 2 ? null : 'lost'}
        where id = ${id}`;
    }
    // Two read at a time: the two stuck ones fill a read, and a run that read them again would never end.
    const run = runDisputes(deps(), { now: new Date(), accountId: owner.accountId, batch: 2 });
    const ended = await Promise.race([
      run,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000)),
    ]);
    expect(ended).toEqual({ opened: 0, expired: 0, decided: 1 });
    const statuses = await stack.sql`select id, status from disputes where id = any(${ids}) order by decided_at`;
    expect(statuses.map((row) => row.status)).toEqual(['under_review', 'under_review', 'lost']);
  });
});

describe('a submission while the bank is slow', () => {
  it('holds no transaction while the bank is asked: the dispute stays lockable, the answer recorded once', async () => {
    const { disputeId: held } = await disputedPayment(CHARGEBACK_CARD);
    let release = () => {};
    bank.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const asked = bank.asked;
    const submitting = post(
      `/disputes/${held}/evidence`,
      evidenceBody({ evidence: { customerName: 'Ann' }, submit: true }),
    );
    await waitFor(() => bank.asked > asked, { what: 'the bank asked' });
    // While the bank thinks, the dispute's row is free: another session locks it at once.
    const [locked] = await stack.sql.begin(
      (tx) => tx`select status, evidence from disputes where id = ${held} for update nowait`,
    );
    expect(locked).toMatchObject({ status: 'needs_response', evidence: {} });
    release();
    bank.hold = undefined;
    const submitted = await submitting;
    expect(submitted.status).toBe(200);
    expect(submitted.body.data.attributes).toMatchObject({
      status: 'under_review',
      evidence: { customerName: 'Ann' },
      evidenceDetails: { submissionCount: 1 },
    });
    expect(bank.asked).toBe(asked + 1);
  });
});
