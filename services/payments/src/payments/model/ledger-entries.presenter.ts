import type { LedgerAccountKind } from '@pps/shared/contract';
import { absoluteUrl } from '@pps/shared/http';
import { type LedgerEntry, merchantAccountOf } from '@pps/shared/ledger';
import { formatCents } from '@pps/shared/money';
import type { BalanceTransactionRef } from './ledger-entries.repository';

const accountKindOf = (ledgerAccount: string): LedgerAccountKind =>
  ledgerAccount.startsWith('merchant:') ? 'merchant' : ledgerAccount.startsWith('operator:') ? 'operator' : 'external';

/**
 * A payment's ledger entries as the API shows them, in the order given (posting order). An entry's id is its
 * posting's and its place in it (`lp_….2`): the table's own sequence would tell every account how much the platform
 * posts. A merchant account's entry names the balance transaction its posting made for that merchant.
 */
export function ledgerEntryResources(entries: LedgerEntry[], made: BalanceTransactionRef[]) {
  const madeBy = new Map(made.map((move) => [`${move.postingId} ${move.merchantId}`, move.id]));
  const places = new Map<string, number>();
  return entries.map((entry) => {
    const place = (places.get(entry.postingId) ?? 0) + 1;
    places.set(entry.postingId, place);
    const merchant = merchantAccountOf(entry.ledgerAccount);
    return {
      type: 'ledgerEntries' as const,
      id: `${entry.postingId}.${place}`,
      attributes: {
        postingId: entry.postingId,
        kind: entry.kind,
        recordId: entry.paymentId,
        ledgerAccount: entry.ledgerAccount,
        accountKind: accountKindOf(entry.ledgerAccount),
        amount: formatCents(entry.amount),
        currency: 'USD' as const,
        balanceTransactionId: (merchant && madeBy.get(`${entry.postingId} ${merchant.merchantId}`)) ?? null,
        createdAt: entry.createdAt.toISOString(),
      },
    };
  });
}

export const ledgerEntriesDocument = (
  baseUrl: string,
  paymentId: string,
  entries: LedgerEntry[],
  made: BalanceTransactionRef[],
) => ({
  links: { self: absoluteUrl(baseUrl, `/payments/${paymentId}/ledger-entries`) },
  data: ledgerEntryResources(entries, made),
});
