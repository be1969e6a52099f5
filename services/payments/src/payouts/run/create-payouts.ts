import { addBusinessDays, pacificDate } from '@pps/shared/clock';
import { groupBy } from '@pps/shared/collections';
import type { DbOrTx } from '@pps/shared/db';
import { schema, textArray } from '@pps/shared/db';
import { writeEvents } from '@pps/shared/events';
import { newId } from '@pps/shared/ids';
import { keptBalances, ledgerAccounts, payoutLines, postMany } from '@pps/shared/ledger';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { payoutResource } from './payout-resource';

const { balanceTransactions, merchantBankAccounts, payouts } = schema;
type MerchantBankAccount = schema.MerchantBankAccount;
type Payout = schema.Payout;

export type PayoutRequest = {
  accountId: string;
  merchantId: string;
  /** The account's clock: the payout's `createdAt`, and the day its arrival date counts from. */
  now: Date;
  method: schema.PayoutMethod;
  /** A manual payout's amount in cents; without it the whole available balance is paid. */
  amount?: number;
  /**
   * Automatic payouts with a delay: only money available on or before this instant is paid (the merchant's
   * `delayDays`); what takes money away (refunds, returns) is always counted, so a payout never overdraws.
   */
  availableBefore?: Date;
  requestId?: string | null;
};

export type PayoutSkipReason = 'below_minimum' | 'insufficient_available_balance' | 'no_bank_account' | 'not_negative';

export type PayoutOutcome =
  | { merchantId: string; created: true; payout: Payout }
  | { merchantId: string; created: false; reason: PayoutSkipReason; available: number };

/** A payout to make: its record, the balance transactions it carries and the bank account version it goes to. */
export type PayoutPlan = { payout: Payout; carries: string[]; bank: MerchantBankAccount };

/**
 * Pays out merchants' available balances (docs/design.md, Payouts), set-based: a handful of statements whatever
 * the number of merchants. For each request: the merchant's available balance transactions no payout carried yet
 * (with a delay, the ones old enough) plus what its previous payout carried forward; an automatic payout pays that
 * whole amount when it is at least `minimum` (else nothing: it is carried forward), a manual one its `amount` (at most
 * the kept available balance, which without a delay is that same amount). A payout writes its record with the bank account in force, carries those balance transactions (their
 * `payoutId`), posts available → in transit and queues `payout.created`.
 *
 * The caller holds each merchant's payout schedule row locked (`FOR UPDATE`, or `SKIP LOCKED` in the payout run),
 * in the transaction it passes: payouts of one merchant are made one at a time, so none carries a row twice and
 * the carried rows always add up to the ledger's available balance.
 */
export async function createPayouts(
  tx: DbOrTx,
  requests: PayoutRequest[],
  options: { minimum: number },
): Promise<PayoutOutcome[]> {
  const { outcomes, plans } = await planPayouts(tx, requests, options);
  await writePayouts(tx, plans);
  return outcomes;
}

/**
 * A payout's statements read and carry every balance transaction since the merchant's last payout: a day's for a
 * daily schedule, but a million for a manual one left a long while. They may outlive the connection's limit (the
 * request deadline, docs/design.md, Deadlines), so the payout's transaction lifts it to this. A manual payout's
 * request is still answered 503 at its deadline; its retry with the same requestId finds the payout made.
 */
const PAYOUT_STATEMENT_TIMEOUT = '5min';

/**
 * `createPayouts`' reads and decisions, without its writes: what each request comes to, and the payouts to make.
 * The payout run files the plans into a NACHA file before `writePayouts` writes them, so they are written once,
 * filed (docs/design.md, Payouts).
 */
export async function planPayouts(
  tx: DbOrTx,
  requests: PayoutRequest[],
  options: { minimum: number },
): Promise<{ outcomes: PayoutOutcome[]; plans: PayoutPlan[] }> {
  if (requests.length === 0) return { outcomes: [], plans: [] };
  const merchantIds = textArray(requests.map((request) => request.merchantId));
  const availableAccounts = requests.map((request) => ledgerAccounts.available(request.merchantId));
  // Four reads sent at once: postgres.js pipelines them on the transaction's connection, after the limit they run
  // under (sent first, in the same round trip).
  const [, kept, unpaid, previous, banks] = await Promise.all([
    tx.execute(sql.raw(`set local statement_timeout = '${PAYOUT_STATEMENT_TIMEOUT}'`)),
    keptBalances(tx, availableAccounts),
    tx
      .select({
        id: balanceTransactions.id,
        merchantId: balanceTransactions.merchantId,
        net: balanceTransactions.net,
        availableOn: balanceTransactions.availableOn,
      })
      .from(balanceTransactions)
      .where(
        and(
          sql`${balanceTransactions.merchantId} = any(${merchantIds})`,
          eq(balanceTransactions.status, 'available'),
          isNull(balanceTransactions.payoutId),
        ),
      ),
    tx
      .selectDistinctOn([payouts.merchantId], { merchantId: payouts.merchantId, carried: payouts.carriedForward })
      .from(payouts)
      .where(sql`${payouts.merchantId} = any(${merchantIds})`)
      .orderBy(payouts.merchantId, desc(payouts.createdAt), desc(payouts.id)),
    tx
      .select()
      .from(merchantBankAccounts)
      .where(
        and(sql`${merchantBankAccounts.merchantId} = any(${merchantIds})`, isNull(merchantBankAccounts.supersededAt)),
      ),
  ]);

  const rowsOf = groupBy(unpaid, (row) => row.merchantId);
  const broughtOf = new Map(previous.map((row) => [row.merchantId, row.carried]));
  const bankOf = new Map(banks.map((bank) => [bank.merchantId, bank]));

  // Requests of a batch share a few days: each one's arrival date is counted once.
  const arrivals = new Map<string, string>();
  const arrivalOf = (now: Date) => {
    const today = pacificDate(now);
    let arrival = arrivals.get(today);
    if (arrival === undefined) {
      arrival = addBusinessDays(today, 1);
      arrivals.set(today, arrival);
    }
    return arrival;
  };
  const outcomes: PayoutOutcome[] = [];
  const plans: PayoutPlan[] = [];
  for (const request of requests) {
    const { merchantId } = request;
    const brought = broughtOf.get(merchantId) ?? 0;
    const all = rowsOf.get(merchantId) ?? [];
    const carries = request.availableBefore
      ? all.filter((row) => row.net < 0 || row.availableOn <= request.availableBefore!)
      : all;
    const carried = brought + carries.reduce((sum, row) => sum + row.net, 0);
    // The kept available balance (what `GET /balance` shows); with a delay, only what is old enough.
    const available = request.availableBefore ? carried : kept.get(ledgerAccounts.available(merchantId))!;
    const amount = request.method === 'manual' ? (request.amount ?? available) : available;
    const bank = bankOf.get(merchantId);
    const reason: PayoutSkipReason | null =
      request.method === 'automatic'
        ? amount < options.minimum
          ? 'below_minimum'
          : null
        : request.method === 'negative_balance_debit'
          ? amount >= 0
            ? 'not_negative'
            : null
          : amount <= 0 || amount > available
            ? 'insufficient_available_balance'
            : null;
    if (reason || !bank) {
      outcomes.push({ merchantId, created: false, reason: reason ?? 'no_bank_account', available });
      continue;
    }
    const payout: Payout = {
      id: newId('payout', request.now.getTime()),
      accountId: request.accountId,
      merchantId,
      amount,
      currency: 'USD',
      status: 'pending',
      method: request.method,
      arrivalDate: arrivalOf(request.now),
      bankAccountId: bank.id,
      bankLast4: bank.last4,
      routingLast4: bank.routingLast4,
      broughtForward: brought,
      carriedForward: carried - amount,
      achFileId: null,
      traceNumber: null,
      failureCode: null,
      failureMessage: null,
      requestId: request.requestId ?? null,
      paidAt: null,
      failedAt: null,
      createdAt: request.now,
      updatedAt: request.now,
    };
    plans.push({ payout, carries: carries.map((row) => row.id), bank });
    outcomes.push({ merchantId, created: true, payout });
  }
  return { outcomes, plans };
}

/**
 * Writes planned payouts (`planPayouts`), set-based: their records (filed or not), the balance transactions they
 * carry, their postings available → in transit, and `payout.created`.
 */
export async function writePayouts(tx: DbOrTx, made: PayoutPlan[]): Promise<void> {
  if (made.length === 0) return;

  const column = (pick: (payout: Payout) => string | number | null) =>
    textArray(made.map(({ payout }) => pick(payout)));
  const carried = made.flatMap(({ payout, carries }) => carries.map((id) => ({ id, payoutId: payout.id })));
  // The four writes are sent at once (postgres.js pipelines them on the transaction's connection): none reads
  // another's rows, and one failing aborts the transaction, and so all of them.
  await Promise.all([
    // An insert from a set of rows: the builder writes a parameter per row and column, so a batch of
    // PAYOUT_BATCH_SIZE payouts would pass PostgreSQL's limit of 65,535 parameters; this is one statement of fixed
    // size.
    tx.execute(sql`
      insert into ${payouts} (id, account_id, merchant_id, amount, currency, status, method, arrival_date,
        bank_account_id, bank_last4, routing_last4, brought_forward, carried_forward, ach_file_id, trace_number,
        request_id, created_at, updated_at)
      select id, account_id, merchant_id, amount::bigint, 'USD', 'pending', method, arrival_date, bank_account_id,
        bank_last4, routing_last4, brought_forward::bigint, carried_forward::bigint, ach_file_id, trace_number,
        request_id, created_at::timestamptz, created_at::timestamptz
      from unnest(${column((p) => p.id)}, ${column((p) => p.accountId)}, ${column((p) => p.merchantId)},
        ${column((p) => p.amount)}, ${column((p) => p.method)}, ${column((p) => p.arrivalDate)},
        ${column((p) => p.bankAccountId)}, ${column((p) => p.bankLast4)}, ${column((p) => p.routingLast4)},
        ${column((p) => p.broughtForward)}, ${column((p) => p.carriedForward)}, ${column((p) => p.achFileId)},
        ${column((p) => p.traceNumber)}, ${column((p) => p.requestId)}, ${column((p) => p.createdAt.toISOString())})
        as payout(id, account_id, merchant_id, amount, method, arrival_date, bank_account_id, bank_last4,
          routing_last4, brought_forward, carried_forward, ach_file_id, trace_number, request_id, created_at)`),
    // An update from a set of (row, payout) pairs: the query builder has no UPDATE … FROM unnest.
    carried.length > 0 &&
      tx.execute(sql`
        update ${balanceTransactions} set payout_id = carried.payout_id
        from unnest(${textArray(carried.map((row) => row.id))}, ${textArray(carried.map((row) => row.payoutId))})
          as carried(id, payout_id)
        where ${balanceTransactions.id} = carried.id`),
    postMany(
      tx,
      made.map(({ payout }) => ({
        accountId: payout.accountId,
        paymentId: payout.id,
        merchantId: payout.merchantId,
        kind: 'payout' as const,
        lines: payoutLines({ merchantId: payout.merchantId, amount: payout.amount }),
        now: payout.createdAt,
      })),
    ),
    writeEvents(
      tx,
      made.map(({ payout }) => ({
        accountId: payout.accountId,
        type: 'payout.created' as const,
        resource: payoutResource(payout),
        previousStatus: null,
        requestId: payout.requestId,
      })),
    ),
  ]);
}
