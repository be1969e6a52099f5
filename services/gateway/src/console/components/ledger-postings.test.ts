import { describe, expect, it } from 'vitest';
import { type LedgerEntry, LedgerPostings, postingGroups } from './ledger-postings';

const entry = (postingId: string, ledgerAccount: string, amount: string, recordId = 'pay_1'): LedgerEntry => ({
  id: `${postingId}.${ledgerAccount}`,
  attributes: {
    postingId,
    kind: 'capture',
    recordId,
    ledgerAccount,
    amount,
    balanceTransactionId: null,
    createdAt: '2026-11-22T17:04:05.123Z',
  },
});

const render = (entries: LedgerEntry[]) => String(LedgerPostings({ entries, pageId: 'pay_1' }));

describe('postingGroups', () => {
  it('groups entries by posting in posting order and adds each posting up in cents, past 2^53', () => {
    const groups = postingGroups([
      entry('lp_a', 'external:card', '-9007199254740993'),
      entry('lp_a', 'merchant:mer_1:pending', '9007199254740993'),
      entry('lp_b', 'merchant:mer_1:pending', '-100', 'pay_2'),
      entry('lp_b', 'external:card', '99', 'pay_2'),
    ]);
    expect(
      groups.map(({ postingId, recordId, entries, total }) => [postingId, recordId, entries.length, total]),
    ).toEqual([
      ['lp_a', 'pay_1', 2, 0n],
      ['lp_b', 'pay_2', 2, -1n],
    ]);
  });
});

describe('LedgerPostings', () => {
  it('says every posting balances when the totals it added up are zero', () => {
    const html = render([entry('lp_a', 'external:card', '-1000'), entry('lp_a', 'operator:fees', '1000')]);
    expect(html).toContain('1 posting, 2 entries; each posting&#39;s entries sum to $0.00.');
    expect(html).toContain('<strong>$0.00</strong> (balanced)');
    expect(html).not.toContain('role="alert"');
  });

  it('shows a posting that does not sum to zero as it is, and says so', () => {
    const html = render([
      entry('lp_a', 'external:card', '-1000'),
      entry('lp_a', 'operator:fees', '1000'),
      entry('lp_b', 'merchant:mer_1:pending', '-100', 'pay_2'),
      entry('lp_b', 'external:card', '99', 'pay_2'),
    ]);
    expect(html).toContain('role="alert"');
    expect(html).toContain('1 of 2 postings do not sum to zero: lp_b (−$0.01).');
    expect(html).toContain('<strong>−$0.01</strong> (does not balance)');
    expect(html).toContain('<a href="/console/payments/pay_2">pay_2</a>');
  });

  it('says when no money has moved', () => {
    expect(render([])).toContain('No posting: no money has moved for this payment.');
  });
});
