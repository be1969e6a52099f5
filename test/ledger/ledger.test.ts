import { withTransaction } from '@pps/shared/db';
import {
  balanceOf,
  captureLines,
  entriesForPayment,
  ledgerAccounts,
  post,
  reverseLines,
  settlementLines,
} from '@pps/shared/ledger';
import { computeFees } from '@pps/shared/money';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStack, type TestStack } from '../harness';

let stack: TestStack;
let accountId: string;

beforeAll(async () => {
  stack = await createTestStack();
  accountId = (await stack.createAccount('Ledger Platform')).accountId;
});
afterAll(() => stack.close());

const now = new Date('2026-11-20T18:00:00.000Z');
const fees = (amount: number) => computeFees({ amount, rateBasisPoints: 290, fixedCents: 30 }).grossMinusNet;
const entryCount = async () => Number((await stack.sql`select count(*)::int as n from ledger_entries`)[0]!.n);

describe('ledger against PostgreSQL', () => {
  it('posts captures and balances follow', async () => {
    const primary = 'mer_ledger_primary';
    const partner = 'mer_ledger_partner';
    const first = captureLines({ rail: 'card', merchantId: primary, gross: 10_000, grossMinusNet: fees(10_000) });
    const second = captureLines({
      rail: 'card',
      merchantId: primary,
      gross: 5_000,
      grossMinusNet: fees(5_000),
      split: { merchantId: partner, amount: 1_000 },
    });
    const achCapture = captureLines({ rail: 'ach', merchantId: primary, gross: 2_000, grossMinusNet: fees(2_000) });

    const postingId = await post(stack.db, {
      accountId,
      paymentId: 'pay_l1',
      merchantId: 'mer_ledger_primary',
      kind: 'capture',
      lines: first,
      now,
    });
    expect(postingId).toMatch(/^lp_/);
    await post(stack.db, {
      accountId,
      paymentId: 'pay_l2',
      merchantId: 'mer_ledger_primary',
      kind: 'capture',
      lines: second,
      now,
    });
    await post(stack.db, {
      accountId,
      paymentId: 'pay_l3',
      merchantId: 'mer_ledger_primary',
      kind: 'capture',
      lines: achCapture,
      now,
    });

    // fees: 10000 → 320, 5000 → 175, 2000 → 88
    expect(await balanceOf(stack.db, ledgerAccounts.pending(primary))).toBe(9_680 + 3_825 + 1_912);
    expect(await balanceOf(stack.db, ledgerAccounts.pending(partner))).toBe(1_000);
    expect(await balanceOf(stack.db, ledgerAccounts.fees)).toBe(320 + 175 + 88);
    expect(await balanceOf(stack.db, ledgerAccounts.external('card'))).toBe(-15_000);
    expect(await balanceOf(stack.db, ledgerAccounts.external('ach'))).toBe(-2_000);
    expect(await balanceOf(stack.db, ledgerAccounts.available(primary))).toBe(0);
    expect(await balanceOf(stack.db, ledgerAccounts.fees, { accountId })).toBe(583);
    expect(await balanceOf(stack.db, ledgerAccounts.fees, { accountId: 'acct_other' })).toBe(0);

    // A void is the exact reversal; settlement moves pending to available.
    await post(stack.db, {
      accountId,
      paymentId: 'pay_l2',
      merchantId: 'mer_ledger_primary',
      kind: 'void',
      lines: reverseLines(second),
      now,
    });
    await post(stack.db, {
      accountId,
      paymentId: 'pay_l1',
      merchantId: 'mer_ledger_primary',
      kind: 'settlement',
      lines: settlementLines({ merchantId: primary, amount: 9_680 }),
      now,
    });
    expect(await balanceOf(stack.db, ledgerAccounts.pending(primary))).toBe(1_912);
    expect(await balanceOf(stack.db, ledgerAccounts.available(primary))).toBe(9_680);
    expect(await balanceOf(stack.db, ledgerAccounts.pending(partner))).toBe(0);
    expect(await balanceOf(stack.db, ledgerAccounts.fees)).toBe(320 + 88);

    const [total] = await stack.sql`select coalesce(sum(amount), 0)::bigint as sum from ledger_entries`;
    expect(Number(total!.sum)).toBe(0);
    const unbalanced = await stack.sql`
      select posting_id from ledger_entries group by posting_id having sum(amount) <> 0`;
    expect(unbalanced).toHaveLength(0);
  });

  it('keeps the entries of a payment, in order, with their posting and kind', async () => {
    const lines = captureLines({
      rail: 'card',
      merchantId: 'mer_ledger_x',
      gross: 1_000,
      grossMinusNet: fees(1_000),
      split: { merchantId: 'mer_ledger_y', amount: 100 },
    });
    const capture = await post(stack.db, {
      accountId,
      paymentId: 'pay_l4',
      merchantId: 'mer_ledger_x',
      kind: 'capture',
      lines,
      now,
    });
    const reversal = await post(stack.db, {
      accountId,
      paymentId: 'pay_l4',
      merchantId: 'mer_ledger_primary',
      kind: 'void',
      lines: reverseLines(lines),
      now,
    });
    const entries = await entriesForPayment(stack.db, 'pay_l4');
    expect(
      entries.map(({ postingId, kind, ledgerAccount, amount }) => ({ postingId, kind, ledgerAccount, amount })),
    ).toEqual([
      { postingId: capture, kind: 'capture', ledgerAccount: 'external:card', amount: -1_000 },
      { postingId: capture, kind: 'capture', ledgerAccount: 'merchant:mer_ledger_x:pending', amount: 841 },
      { postingId: capture, kind: 'capture', ledgerAccount: 'merchant:mer_ledger_y:pending', amount: 100 },
      { postingId: capture, kind: 'capture', ledgerAccount: 'operator:fees', amount: 59 },
      { postingId: reversal, kind: 'void', ledgerAccount: 'external:card', amount: 1_000 },
      { postingId: reversal, kind: 'void', ledgerAccount: 'merchant:mer_ledger_x:pending', amount: -841 },
      { postingId: reversal, kind: 'void', ledgerAccount: 'merchant:mer_ledger_y:pending', amount: -100 },
      { postingId: reversal, kind: 'void', ledgerAccount: 'operator:fees', amount: -59 },
    ]);
    expect(entries.every((entry) => entry.accountId === accountId && entry.createdAt.getTime() === now.getTime())).toBe(
      true,
    );
    expect(await entriesForPayment(stack.db, 'pay_none')).toEqual([]);
  });

  it('skips zero lines, and a posting of only zeros writes nothing', async () => {
    const lines = captureLines({ rail: 'card', merchantId: 'mer_ledger_z', gross: 500, grossMinusNet: 45 });
    const withZero = [...lines, { ledgerAccount: ledgerAccounts.available('mer_ledger_z'), amount: 0 }];
    await post(stack.db, {
      accountId,
      paymentId: 'pay_l5',
      merchantId: 'mer_ledger_primary',
      kind: 'capture',
      lines: withZero,
      now,
    });
    expect(await entriesForPayment(stack.db, 'pay_l5')).toHaveLength(3);
    const before = await entryCount();
    const id = await post(stack.db, {
      accountId,
      paymentId: 'pay_l5',
      merchantId: 'mer_ledger_primary',
      kind: 'settlement',
      lines: settlementLines({ merchantId: 'mer_ledger_z', amount: 0 }),
      now,
    });
    expect(id).toMatch(/^lp_/);
    expect(await entryCount()).toBe(before);
  });

  it('refuses an unbalanced, empty, fractional or unknown-account posting and writes nothing', async () => {
    const before = await entryCount();
    const attempts = [
      [
        { ledgerAccount: ledgerAccounts.external('card'), amount: -1_000 },
        { ledgerAccount: ledgerAccounts.pending('mer_ledger_bad'), amount: 999 },
      ],
      [],
      [
        { ledgerAccount: ledgerAccounts.external('card'), amount: -10.5 },
        { ledgerAccount: ledgerAccounts.fees, amount: 10.5 },
      ],
      [
        { ledgerAccount: 'bank:vault', amount: -10 },
        { ledgerAccount: ledgerAccounts.fees, amount: 10 },
      ],
    ];
    for (const lines of attempts) {
      await expect(
        post(stack.db, { accountId, paymentId: 'pay_bad', merchantId: 'mer_ledger_x', kind: 'capture', lines, now }),
      ).rejects.toThrow(/ledger posting refused/);
    }
    expect(await entryCount()).toBe(before);
    expect(await entriesForPayment(stack.db, 'pay_bad')).toEqual([]);
  });

  it('lands with its transaction: a rolled-back state change leaves no entries', async () => {
    const lines = captureLines({ rail: 'card', merchantId: 'mer_ledger_tx', gross: 700, grossMinusNet: fees(700) });
    await expect(
      withTransaction(stack.db, async (tx) => {
        await post(tx, { accountId, paymentId: 'pay_l6', merchantId: 'mer_ledger_x', kind: 'capture', lines, now });
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    expect(await entriesForPayment(stack.db, 'pay_l6')).toEqual([]);
    expect(await balanceOf(stack.db, ledgerAccounts.pending('mer_ledger_tx'))).toBe(0);
  });
});
