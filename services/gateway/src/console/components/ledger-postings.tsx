import type { Child, FC } from 'hono/jsx';
import { dollars, when } from './format';
import { Notice } from './layout';
import { Table } from './table';

/** A ledger entry as `GET /payments/{id}/ledger-entries` shows it. */
export type LedgerEntry = {
  id: string;
  attributes: {
    postingId: string;
    kind: string;
    recordId: string;
    ledgerAccount: string;
    amount: string;
    balanceTransactionId: string | null;
    createdAt: string;
  };
};

/** One posting: its entries in the order written, and their sum in cents as the entries say it (never assumed). */
export type PostingGroup = { postingId: string; kind: string; recordId: string; entries: LedgerEntry[]; total: bigint };

/** The entries by posting, in posting order, each posting's total added up in BigInt from its entries' amounts. */
export function postingGroups(entries: LedgerEntry[]): PostingGroup[] {
  const groups = new Map<string, PostingGroup>();
  for (const entry of entries) {
    const { postingId, kind, recordId, amount } = entry.attributes;
    const group = groups.get(postingId) ?? { postingId, kind, recordId, entries: [], total: 0n };
    group.entries.push(entry);
    group.total += BigInt(amount);
    groups.set(postingId, group);
  }
  return [...groups.values()];
}

/** The record a posting was made for: a link to its console page, unless it is the page's own payment. */
const RecordLink: FC<{ recordId: string; pageId: string }> = ({ recordId, pageId }) => {
  if (recordId === pageId) return <>this payment</>;
  if (recordId.startsWith('dp_')) return <a href={`/console/disputes/${recordId}`}>{recordId}</a>;
  return <a href={`/console/payments/${recordId}`}>{recordId}</a>;
};

/**
 * A payment's ledger postings: a row per entry, then the posting's total, which the ledger keeps at zero; the page
 * shows the sum of what it was given, and says so above the table when a posting does not come to zero.
 */
export const LedgerPostings: FC<{ entries: LedgerEntry[]; pageId: string }> = ({ entries, pageId }) => {
  const groups = postingGroups(entries);
  const unbalanced = groups.filter((group) => group.total !== 0n);
  const rows: Child[][] = groups.flatMap((group) => {
    const posting = `${group.kind} · ${group.postingId}`;
    const record = <RecordLink recordId={group.recordId} pageId={pageId} />;
    return [
      ...group.entries.map(({ attributes: a }) => [
        a.ledgerAccount,
        posting,
        record,
        dollars(a.amount),
        a.balanceTransactionId ?? '—',
        when(a.createdAt),
      ]),
      [
        `Total of ${group.postingId}`,
        posting,
        record,
        <>
          <strong>{dollars(group.total)}</strong> {group.total === 0n ? '(balanced)' : '(does not balance)'}
        </>,
        '',
        '',
      ],
    ];
  });
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return (
    <>
      {unbalanced.length > 0 ? (
        <Notice kind="error">
          {`${unbalanced.length} of ${count(groups.length, 'posting does', 'postings do')} not sum to zero: ` +
            `${unbalanced.map((group) => `${group.postingId} (${dollars(group.total)})`).join(', ')}.`}
        </Notice>
      ) : (
        groups.length > 0 && (
          <p class="help">
            {`${count(groups.length, 'posting', 'postings')}, ${count(entries.length, 'entry', 'entries')}; ` +
              `each posting's entries sum to ${dollars(0)}.`}
          </p>
        )
      )}
      <Table
        caption="Ledger entries in posting order, each posting followed by its total"
        headers={['Ledger account', 'Posting', 'Record', 'Amount', 'Balance transaction', 'Posted']}
        empty="No posting: no money has moved for this payment."
        rows={rows}
      />
    </>
  );
};
