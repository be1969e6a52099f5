import {
  countedLists,
  type DbOrTx,
  type Keyset,
  keysetPage,
  keysetRead,
  listTotal,
  placeIn,
  schema,
  type Travel,
} from '@pps/shared/db';
import type { DisputeStatus } from '@pps/shared/states';
import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';

const { disputes } = schema;

export type Dispute = schema.Dispute;
export type NewDispute = schema.NewDispute;

export async function findDispute(db: DbOrTx, id: string): Promise<Dispute | undefined> {
  const [row] = await db.select().from(disputes).where(eq(disputes.id, id));
  return row;
}

/** The dispute, its row held until the transaction ends: every change of a dispute is made under this lock. */
export async function lockDispute(tx: DbOrTx, id: string): Promise<Dispute | undefined> {
  const [row] = await tx.select().from(disputes).where(eq(disputes.id, id)).for('update');
  return row;
}

/** Stores a network dispute once: the row, or undefined when its `networkId` is stored already. */
export async function insertDispute(tx: DbOrTx, values: NewDispute): Promise<Dispute | undefined> {
  const [row] = await tx
    .insert(disputes)
    .values(values)
    .onConflictDoNothing({ target: disputes.networkId })
    .returning();
  return row;
}

/** Changes a dispute still in `from` (its row locked by the caller); undefined when it had moved on. */
export async function updateDispute(
  tx: DbOrTx,
  id: string,
  from: DisputeStatus,
  changes: Partial<NewDispute>,
): Promise<Dispute | undefined> {
  const [row] = await tx
    .update(disputes)
    .set(changes)
    .where(and(eq(disputes.id, id), eq(disputes.status, from)))
    .returning();
  return row;
}

/**
 * The disputes the clock has reached, each by its account's clock at `now` (real time): unanswered ones past
 * `dueBy` (`expire`), or evidence the bank has answered by `decidedAt` (`decide`), oldest first, `limit` at most,
 * after `after` when given. Another run may read the same ones: each move is conditional on the status it was read
 * in (the run locks the row). Read along the partial indexes of the open disputes, so the history of closed ones is
 * never read.
 */
export async function dueDisputes(
  db: DbOrTx,
  query: {
    due: 'expire' | 'decide';
    now: Date;
    accountId?: string;
    limit: number;
    /** Only those after this one in the order read (`at`, then id): where the run's last read ended. */
    after?: DueDispute;
  },
): Promise<DueDispute[]> {
  const at = query.due === 'expire' ? disputes.dueBy : disputes.decidedAt;
  const status: DisputeStatus = query.due === 'expire' ? 'needs_response' : 'under_review';
  const after = query.after
    ? sql`and (${at}, ${disputes.id}) > (${query.after.at}::timestamptz, ${query.after.id})`
    : sql``;
  // Written out: the comparison with each account's clock joins accounts, which the builder writes as a subquery.
  const rows = await db.execute<{ id: string; at: string }>(sql`
    select ${disputes.id} as id, to_char(${at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at
    from ${disputes}
    join accounts on accounts.id = ${disputes.accountId}
    where ${disputes.status} = ${status}
      and ${at} <= ${query.now.toISOString()}::timestamptz + accounts.clock_offset_seconds * interval '1 second'
      and (${query.accountId ?? null}::text is null or ${disputes.accountId} = ${query.accountId ?? null})
      ${after}
    order by ${at}, ${disputes.id}
    limit ${query.limit}`);
  return rows.map((row) => ({ id: row.id, at: row.at }));
}

/**
 * A dispute due to move, and when it came due (`dueBy` or `decidedAt`, as UTC text to the microsecond, exactly as
 * stored): where a read of them ends.
 */
export type DueDispute = { id: string; at: string };

export type DisputeListFilter = {
  accountId: string;
  merchantId?: string;
  paymentId?: string;
  status?: DisputeStatus;
  startDate?: Date;
  endDate?: Date;
  limit: number;
  offset: number;
  keyset?: Keyset;
};

const disputeScope = (scope: Pick<DisputeListFilter, 'accountId' | 'merchantId' | 'paymentId'>) =>
  and(
    eq(disputes.accountId, scope.accountId),
    scope.merchantId ? eq(disputes.merchantId, scope.merchantId) : undefined,
    scope.paymentId ? eq(disputes.paymentId, scope.paymentId) : undefined,
  );

/** A dispute's place in the list of `scope`, for a cursor; undefined when it is no dispute of the scope's. */
export const disputePlace = (
  db: DbOrTx,
  scope: Pick<DisputeListFilter, 'accountId' | 'merchantId' | 'paymentId'>,
  id: string,
) => placeIn(db, disputes, id, disputeScope(scope));

/**
 * A page of disputes, newest first, with the filter's total: the kept count of the merchant's or the account's
 * disputes (by status), or, for one payment or a date range, a count of those rows.
 */
export async function listDisputeRows(
  db: DbOrTx,
  filter: DisputeListFilter,
): Promise<{ rows: Dispute[]; total: number; travel?: Travel }> {
  const conditions: (SQL | undefined)[] = [
    disputeScope(filter),
    filter.status ? eq(disputes.status, filter.status) : undefined,
    filter.startDate ? gte(disputes.createdAt, filter.startDate) : undefined,
    filter.endDate ? lt(disputes.createdAt, filter.endDate) : undefined,
  ];
  const where = and(...conditions);
  const kept = filter.merchantId
    ? { list: countedLists.merchantDisputes, scope: filter.merchantId }
    : { list: countedLists.accountDisputes, scope: filter.accountId };
  const read = keysetRead(disputes, filter.keyset, filter.limit);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(disputes)
      .where(and(where, read.where))
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(filter.offset),
    listTotal(
      db,
      disputes,
      where,
      filter.startDate || filter.endDate || filter.paymentId
        ? undefined
        : { ...kept, buckets: filter.status ? [filter.status] : undefined },
    ),
  ]);
  return { ...keysetPage(rows, filter.limit, filter.keyset), total };
}

/**
 * Marks the payment's row with its dispute (appended) or the dispute's new `withdrawn`: what its refunds may no
 * longer take (`refund-rules.ts`). The payment row is locked by the caller.
 */
export async function markPayment(
  tx: DbOrTx,
  input: { paymentId: string; disputeId: string; withdrawn: number; now: Date },
): Promise<void> {
  const mark = JSON.stringify({ id: input.disputeId, withdrawn: input.withdrawn });
  // Written out: a jsonb array appended to, or one of its elements replaced, which the builder cannot write.
  await tx.execute(sql`
    update payments set updated_at = ${input.now.toISOString()}::timestamptz, disputes = case
      when coalesce(disputes, '[]'::jsonb) @> jsonb_build_array(jsonb_build_object('id', ${input.disputeId}::text))
        then (select jsonb_agg(case when element->>'id' = ${input.disputeId} then ${mark}::jsonb else element end
                                order by position)
              from jsonb_array_elements(disputes) with ordinality as marks(element, position))
      else coalesce(disputes, '[]'::jsonb) || jsonb_build_array(${mark}::jsonb)
    end
    where id = ${input.paymentId}`);
}
