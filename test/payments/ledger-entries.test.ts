import { createDataCipher, runDisputes, SandboxProcessor } from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import { settleAtFor } from '@pps/shared/clock';
import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { captureBody, createCardToken, createPayment, refundBody, setClock, tokenv3Body } from '../fixtures/payments';
import { copyRow, rowsRead } from '../fixtures/scans';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * `GET /payments/{id}/ledger-entries` (docs/api.md, Ledger entries of a payment): an authorization captured in part
 * and refunded in part shows its capture and its refund record's posting, then its settlements, in posting order,
 * each posting summing to zero and every merchant line naming the balance transaction its posting made; a dispute's
 * postings show on its payment; another account's payment and unknown ids are refused as `GET /payments/{id}`
 * refuses them; and the read takes the payment's rows by the ledger's key, whatever else the ledger holds.
 */

const CHARGEBACK_CARD = '4000000000000259';
const log = createLogger({ level: 'silent' });

type Entry = {
  type: string;
  id: string;
  attributes: {
    postingId: string;
    kind: string;
    recordId: string;
    ledgerAccount: string;
    accountKind: string;
    amount: string;
    currency: string;
    balanceTransactionId: string | null;
    createdAt: string;
  };
};

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
let tokenId: string;
const sent: { text: string; params: readonly unknown[] }[] = [];
let listening = false;

beforeAll(async () => {
  stack = await createTestStack({
    onQuery: (text, params) => {
      if (listening) sent.push({ text, params: [...params] });
    },
  });
  ({ creds, other, merchantId, tokenId } = await createWorld(stack, { account: 'Ledger', other: 'Elsewhere' }));
});
afterAll(() => stack?.close());

const get = (path: string, as: Credentials = creds) => stack.call('GET', path, { as });
const entriesOf = async (id: string) => {
  const response = await get(`/payments/${id}/ledger-entries`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.links).toEqual({ self: `http://localhost:8080/payments/${id}/ledger-entries` });
  return response.body.data as Entry[];
};

/** Each posting's entries summed, in integer cents (BigInt: never a float), by posting id. */
const postingSums = (entries: Entry[]) => {
  const sums = new Map<string, bigint>();
  for (const { attributes } of entries) {
    sums.set(attributes.postingId, (sums.get(attributes.postingId) ?? 0n) + BigInt(attributes.amount));
  }
  return sums;
};

/** The ledger's own rows of these records, in the order written. */
const ledgerRows = (recordIds: string[]) =>
  stack.sql`select posting_id, payment_id, kind, ledger_account, amount::text as amount from ledger_entries
    where payment_id in ${stack.sql(recordIds)} order by id`;

const passDeps = () => ({
  db: stack.db,
  config: stack.config,
  cipher: createDataCipher(stack.config),
  processor: new SandboxProcessor({ db: stack.db }),
  log,
});

/** What the settlement worker does when the clock moves: settle what is due, then the disputes. */
async function pass() {
  await runSettlementPass(passDeps(), { now: new Date(), batchSize: 100, accountId: creds.accountId });
  return runDisputes(passDeps(), { now: new Date(), accountId: creds.accountId });
}

const accountNow = async () => {
  const [row] = await stack.sql`select clock_offset_seconds from accounts where id = ${creds.accountId}`;
  return new Date(Date.now() + Number(row!.clock_offset_seconds) * 1000);
};
/** The account's sandbox clock to `to`, unless it is past it already. */
const moveClock = async (to: Date) => {
  if (to.getTime() > (await accountNow()).getTime()) await setClock(stack, creds, to);
};

describe('GET /payments/{id}/ledger-entries', () => {
  let paymentId: string;
  let captureId: string;
  let refundId: string;

  it('shows a captured, partly refunded payment’s postings in posting order, each summing to zero', async () => {
    const authorization = await createPayment(
      stack,
      creds,
      tokenv3Body({ merchantId, tokenId, amount: '10000', attributes: { capture: false } }),
    );
    paymentId = authorization.body.data.id;
    // An authorization moves no money: no entry yet.
    expect(await entriesOf(paymentId)).toEqual([]);
    captureId = (await createPayment(stack, creds, captureBody(paymentId, '6000'))).body.data.id;
    refundId = (await createPayment(stack, creds, refundBody(paymentId, '1000'))).body.data.id;
    expect((await get(`/payments/${refundId}`)).body.data.attributes.transaction.refundType).toBe('refund');

    const entries = await entriesOf(paymentId);
    // 6000 captured: 2.9 % is 174, plus 30 fixed; the merchant's net 5796. Then 1000 refunded out of pending.
    expect(entries.map(({ attributes }) => [attributes.kind, attributes.ledgerAccount, attributes.amount])).toEqual([
      ['capture', 'external:card', '-6000'],
      ['capture', `merchant:${merchantId}:pending`, '5796'],
      ['capture', 'operator:fees', '204'],
      ['refund', `merchant:${merchantId}:pending`, '-1000'],
      ['refund', 'external:card', '1000'],
    ]);
    // The capture posts under the authorization, the refund under its own record; the capture record posts nothing.
    expect(entries.map(({ attributes }) => attributes.recordId)).toEqual([
      paymentId,
      paymentId,
      paymentId,
      refundId,
      refundId,
    ]);
    const [capturePosting, refundPosting] = [...postingSums(entries).keys()];
    expect([...postingSums(entries).values()]).toEqual([0n, 0n]);
    expect(entries.map(({ id }) => id)).toEqual([
      `${capturePosting}.1`,
      `${capturePosting}.2`,
      `${capturePosting}.3`,
      `${refundPosting}.1`,
      `${refundPosting}.2`,
    ]);
    expect(entries.map(({ attributes }) => attributes.accountKind)).toEqual([
      'external',
      'merchant',
      'operator',
      'merchant',
      'external',
    ]);
    for (const { type, attributes } of entries) {
      expect(type).toBe('ledgerEntries');
      expect(attributes.currency).toBe('USD');
      expect(attributes.amount).toMatch(/^-?\d+$/);
      expect(Number.isNaN(Date.parse(attributes.createdAt))).toBe(false);
    }
    // What the ledger holds, in the order it was written.
    expect(
      entries.map(({ attributes: a }) => ({
        posting_id: a.postingId,
        payment_id: a.recordId,
        kind: a.kind,
        ledger_account: a.ledgerAccount,
        amount: a.amount,
      })),
    ).toEqual([...(await ledgerRows([paymentId, captureId, refundId]))]);

    // A merchant's entry names its posting's balance transaction, as the merchant's list shows it.
    const moves = (await get(`/merchants/${merchantId}/balance-transactions?limit=100`)).body.data as {
      id: string;
      attributes: { type: string; sourceId: string; net: string };
    }[];
    const payment = moves.find((move) => move.attributes.sourceId === paymentId);
    const refund = moves.find((move) => move.attributes.sourceId === refundId);
    expect(payment?.attributes).toMatchObject({ type: 'payment', net: '5796' });
    expect(refund?.attributes).toMatchObject({ type: 'refund', net: '-1000' });
    expect(entries.map(({ attributes }) => attributes.balanceTransactionId)).toEqual([
      null,
      payment!.id,
      null,
      refund!.id,
      null,
    ]);
  });

  it('adds the settlements at the end, under the records they settle, and reads a child record’s own', async () => {
    const before = await entriesOf(paymentId);
    const { settleAt } = (await get(`/payments/${paymentId}`)).body.data.attributes;
    await moveClock(new Date(new Date(settleAt).getTime() + 1000));
    await pass();
    expect((await get(`/payments/${paymentId}`)).body.data.attributes.settledAt).not.toBeNull();

    const entries = await entriesOf(paymentId);
    expect(entries.slice(0, before.length)).toEqual(before);
    const settlements = entries.slice(before.length);
    expect(settlements.length).toBeGreaterThan(0);
    for (const { attributes } of settlements) {
      expect(attributes.kind).toBe('settlement');
      expect([paymentId, refundId]).toContain(attributes.recordId);
      // A settlement moves money between a merchant's own balances: it makes no balance transaction.
      expect(attributes.balanceTransactionId).toBeNull();
    }
    // What the capture left in pending less the refund (5796 − 1000) reached available.
    const available = settlements
      .filter(({ attributes }) => attributes.ledgerAccount === `merchant:${merchantId}:available`)
      .reduce((sum, { attributes }) => sum + BigInt(attributes.amount), 0n);
    expect(available).toBe(4796n);
    for (const sum of postingSums(entries).values()) expect(sum).toBe(0n);
    expect(entries.reduce((sum, { attributes }) => sum + BigInt(attributes.amount), 0n)).toBe(0n);
    expect(
      entries.map(({ attributes }) => attributes.postingId),
      'posting order: ledger order',
    ).toEqual((await ledgerRows([paymentId, captureId, refundId])).map((row) => row.posting_id));

    // A child record's entries are its own postings'; the capture record posted nothing.
    const refundEntries = await entriesOf(refundId);
    expect(refundEntries).toEqual(entries.filter(({ attributes }) => attributes.recordId === refundId));
    expect(await entriesOf(captureId)).toEqual([]);
  });

  it('shows the postings of the payment’s disputes', async () => {
    const disputedMerchant = await createMerchant(stack, creds);
    const card = await createCardToken(stack, creds, CHARGEBACK_CARD);
    const paid = await createPayment(
      stack,
      creds,
      tokenv3Body({ merchantId: disputedMerchant, tokenId: card, amount: '8000' }),
    );
    const disputed = paid.body.data.id as string;
    await moveClock(new Date(new Date(paid.body.data.attributes.settleAt).getTime() + 1000));
    await pass();
    const [settled] = await stack.sql`select settled_at from payments where id = ${disputed}`;
    await moveClock(new Date(settleAtFor(new Date(settled!.settled_at), 1).getTime() + 1000));
    expect((await pass()).opened).toBe(1);
    const disputeId = (await get(`/payments/${disputed}`)).body.data.attributes.disputes[0] as string;

    const entries = await entriesOf(disputed);
    expect([...new Set(entries.map(({ attributes }) => attributes.kind))]).toEqual([
      'capture',
      'settlement',
      'dispute',
    ]);
    const chargeback = entries.filter(({ attributes }) => attributes.kind === 'dispute');
    expect(chargeback.every(({ attributes }) => attributes.recordId === disputeId)).toBe(true);
    // The disputed amount back to the card rail, the dispute fee to the operator, both out of available.
    const fee = BigInt(stack.config.DISPUTE_FEE_CENTS);
    expect(chargeback.map(({ attributes }) => [attributes.ledgerAccount, BigInt(attributes.amount)])).toEqual(
      expect.arrayContaining([
        [`merchant:${disputedMerchant}:available`, -(8000n + fee)],
        ['external:card', 8000n],
        ['operator:fees', fee],
      ]),
    );
    for (const sum of postingSums(entries).values()) expect(sum).toBe(0n);
  });

  it('refuses as GET /payments/{id} does: 404 for an unknown or malformed id, 403 for another account’s', async () => {
    const answers = {
      unknown: await get('/payments/pay_0000000000aaaaaaaaaaaaaaaa/ledger-entries'),
      malformed: await get('/payments/whatever/ledger-entries'),
      another: await get(`/payments/${paymentId}/ledger-entries`, other),
    };
    expectError(answers.unknown, 404, 'payment_not_found');
    expectError(answers.malformed, 404, 'payment_not_found');
    expectError(answers.another, 403, 'payment_forbidden');
    // The same answers as the payment's own: the id is the path's, so no pointer or parameter.
    expect(answers.unknown.body.errors).toEqual((await get('/payments/pay_0000000000aaaaaaaaaaaaaaaa')).body.errors);
    expect(answers.another.body.errors).toEqual((await get(`/payments/${paymentId}`, other)).body.errors);
    for (const answer of Object.values(answers)) {
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors[0].source).toBeUndefined();
    }
    expect(answers.another.body.errors[0].detail).not.toContain('external:card');
    // "status" is no payment id: the status route answers, as it did before this route.
    expectError(await get('/payments/status/ledger-entries'), 404, 'payment_not_found');
  });

  it('reads the payment’s rows by the ledger’s key, whatever else the ledger holds', async () => {
    // 2,000 other payments' postings (copies of this one's, balanced) and balance transactions.
    await stack.sql`insert into ledger_entries (posting_id, account_id, payment_id, kind, ledger_account, amount, created_at)
      select 'lp_copy' || i || '_' || posting_id, account_id, 'pay_copy' || i, kind, ledger_account, amount, created_at
      from ledger_entries, generate_series(1, 2000) i where payment_id = ${paymentId}`;
    const [move] = await stack.sql`select id from balance_transactions where source_id = ${paymentId} limit 1`;
    await copyRow(
      stack.sql,
      { table: 'balance_transactions', id: move!.id },
      { prefix: 'txn_copy', count: 2000, perCopy: { source_id: "'pay_copy' || i" } },
    );
    await stack.sql`analyze ledger_entries`;
    await stack.sql`analyze balance_transactions`;

    sent.length = 0;
    listening = true;
    const entries = await entriesOf(paymentId);
    listening = false;
    const statement = (table: string) => {
      const found = sent.filter(({ text }) => /^\s*select/i.test(text) && text.includes(`from "${table}"`));
      expect(found, `one read of ${table}`).toHaveLength(1);
      return found[0]!;
    };
    const ledger = await rowsRead(stack.sql, statement('ledger_entries'), 'ledger_entries');
    expect(ledger.found).toBe(entries.length);
    expect(ledger.read).toBe(entries.length);
    const made = await rowsRead(stack.sql, statement('balance_transactions'), 'balance_transactions');
    expect(made.read).toBe(made.found);
    expect(made.found).toBe(2);
  });
});
