import {
  countedLists,
  type DbOrTx,
  type Keyset,
  keptCount,
  keysetPage,
  keysetRead,
  placeIn,
  schema,
  type Travel,
  withTransaction,
} from '@pps/shared/db';
import type { PaymentStatus } from '@pps/shared/states';
import { and, count, desc, eq, gte, isNotNull, lt, lte, ne, or, type SQL, sql } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import type { Payment } from './payments.repository';

const { customers, payments, tokens } = schema;

/** Whose records a list holds: the account's, or one of its merchants' (as primary or as split receiver). */
export type PaymentListScope = { accountId: string; merchantId?: string };

export type PaymentListFilter = PaymentListScope & {
  status?: PaymentStatus;
  paymentType?: Payment['paymentType'];
  /** Exact match. */
  invoice?: string;
  /** Created at or after. */
  startDate?: Date;
  /** Created before. */
  endDate?: Date;
  /** The card's last four digits, as the record's card snapshot has them. */
  last4?: string;
  /** The email, in any case, of the customer whose vault token paid. */
  customerEmail?: string;
  /** Cents, both inclusive. */
  amountGte?: number;
  amountLte?: number;
  /** Created at or after, at or before. */
  createdGte?: Date;
  createdLte?: Date;
  limit: number;
  offset: number;
  /** The page starts at a cursor item's place (`paymentPlace`), not at the newest record. */
  keyset?: Keyset;
};

/** A page of the list: its rows, the filter's total (more match than it says when `totalCapped`), its travel. */
export type PaymentListPage = { rows: Payment[]; total: number; totalCapped?: boolean; travel?: Travel };

/**
 * How far a total the kept counts cannot give is counted: past it, `total` says that many and `totalCapped` that
 * more match (or as far as the page asked for, `offset` + `limit`, when that is further). Counting reads along the
 * page's indexes, as the page does, so it costs about four first pages of 25 (docs/decisions.md).
 */
export const TOTAL_BOUND = 100;

/** The records of a scope: the merchant's as primary or as split receiver, or the account's. */
const inScope = (scope: PaymentListScope) =>
  scope.merchantId === undefined
    ? eq(payments.accountId, scope.accountId)
    : or(eq(payments.merchantId, scope.merchantId), eq(payments.splitMerchantId, scope.merchantId));

/** A record's place in the scope's list, for a cursor; undefined when it is no record of the scope's. */
export const paymentPlace = (db: DbOrTx, scope: PaymentListScope, id: string) =>
  placeIn(db, payments, id, inScope(scope));

/**
 * The parts of a scope each read along an index of its own, newest first: a merchant's two roles (a split never
 * names its primary merchant, so they never overlap; the second says so anyway), or the account's records.
 */
function partsOf(scope: PaymentListScope): [SQL, ...SQL[]] {
  if (scope.merchantId === undefined) return [eq(payments.accountId, scope.accountId)];
  return [
    eq(payments.merchantId, scope.merchantId),
    and(eq(payments.splitMerchantId, scope.merchantId), ne(payments.merchantId, scope.merchantId)) as SQL,
  ];
}

/** The card's last four as the record's snapshot has them: the expression the last-four indexes hold. */
const cardLast4 = sql`(${payments.card}->>'last4')`;

/** Every filter but the customer's, which decides where the list is read (`customerTokens`). */
function conditionsOf(filter: PaymentListFilter): SQL[] {
  const conditions: SQL[] = [];
  if (filter.status) conditions.push(eq(payments.status, filter.status));
  // Neither has an index of its own: each part still reads along its index, newest first, and skips the records
  // that do not match, so a rare invoice may scan much of the scope's records.
  if (filter.paymentType) conditions.push(eq(payments.paymentType, filter.paymentType));
  if (filter.invoice !== undefined) conditions.push(eq(payments.invoice, filter.invoice));
  // The dates bound the range each part reads of its index; the amounts are checked on the records it reads.
  if (filter.startDate) conditions.push(gte(payments.createdAt, filter.startDate));
  if (filter.endDate) conditions.push(lt(payments.createdAt, filter.endDate));
  if (filter.createdGte) conditions.push(gte(payments.createdAt, filter.createdGte));
  if (filter.createdLte) conditions.push(lte(payments.createdAt, filter.createdLte));
  if (filter.amountGte !== undefined) conditions.push(gte(payments.amount, filter.amountGte));
  if (filter.amountLte !== undefined) conditions.push(lte(payments.amount, filter.amountLte));
  // `card is not null` is the last-four indexes' condition, said as they say it.
  if (filter.last4 !== undefined) conditions.push(isNotNull(payments.card), sql`${cardLast4} = ${filter.last4}`);
  return conditions;
}

/** The vault tokens of the account's customers with this email, in any case: where a customer's list starts. */
const customerTokens = (db: DbOrTx, accountId: string, email: string) =>
  db
    .select({ id: tokens.id })
    .from(customers)
    .innerJoin(tokens, eq(tokens.customerId, customers.id))
    .where(and(eq(customers.accountId, accountId), sql`lower(${customers.email}) = lower(${email})`));

/**
 * The page: each part of the scope read newest first along its index and cut at the page's end, then merged, so a
 * page reads about its own rows; from a cursor, each part starts at the cursor's place. A customer's list is read
 * token by token instead (a lateral join), each along `payments_token_created_idx`: it never reads the scope's
 * other records. A new payment between its phases is its claim, not listed (docs/design.md): listed once its
 * outcome is recorded.
 */
async function readPage(db: DbOrTx, filter: PaymentListFilter, conditions: SQL[]): Promise<Payment[]> {
  const read = keysetRead(payments, filter.keyset, filter.limit);
  const part = (where: SQL) =>
    db
      .select()
      .from(payments)
      .where(and(where, read.where, ...conditions))
      .orderBy(...read.orderBy)
      .limit(filter.offset + read.limit);
  if (filter.customerEmail !== undefined) {
    const paying = customerTokens(db, filter.accountId, filter.customerEmail).as('paying');
    const paid = part(and(eq(payments.tokenId, paying.id), inScope(filter)) as SQL).as('paid');
    const merged = keysetRead(paid, filter.keyset, filter.limit);
    const rows = await db
      .select()
      .from(paying)
      .crossJoinLateral(paid)
      .orderBy(...merged.orderBy)
      .limit(read.limit)
      .offset(filter.offset);
    return rows.map((row) => row.paid);
  }
  const [first, ...others] = partsOf(filter);
  if (others.length === 0) {
    return db
      .select()
      .from(payments)
      .where(and(first, read.where, ...conditions))
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(filter.offset);
  }
  const [second, ...rest] = others.map(part);
  return unionAll(part(first), second!, ...rest)
    .orderBy(...read.orderBy)
    .limit(read.limit)
    .offset(filter.offset);
}

/** A merchant's list filtered as before the console's filters: by status, type, invoice, `startDate`/`endDate`. */
const merchantListAsBefore = (filter: PaymentListFilter): filter is PaymentListFilter & { merchantId: string } =>
  filter.merchantId !== undefined &&
  filter.last4 === undefined &&
  filter.customerEmail === undefined &&
  filter.amountGte === undefined &&
  filter.amountLte === undefined &&
  filter.createdGte === undefined &&
  filter.createdLte === undefined;

/**
 * A merchant's total as before: its kept count by status (a few rows whatever the history), or, with a type, an
 * invoice or a date, every match counted (docs/decisions.md, No filter ignored).
 */
function totalAsBefore(db: DbOrTx, filter: PaymentListFilter & { merchantId: string }, conditions: SQL[]) {
  if (filter.startDate || filter.endDate || filter.paymentType || filter.invoice !== undefined) {
    return db
      .select({ total: count() })
      .from(payments)
      .where(and(inScope(filter), ...conditions))
      .then(([counted]) => counted?.total ?? 0);
  }
  return keptCount(db, {
    list: countedLists.payments,
    scope: filter.merchantId,
    buckets: filter.status ? [filter.status] : undefined,
  });
}

/**
 * The matches counted up to `TOTAL_BOUND`, or the page's end when further, read as the page reads them: each part
 * of the scope (or each of the customer's tokens) newest first along its index, cut at the bound. More than that is
 * the bound, `totalCapped`.
 */
async function totalToBound(db: DbOrTx, filter: PaymentListFilter, conditions: SQL[]) {
  const bound = Math.max(TOTAL_BOUND, filter.offset + filter.limit);
  const matches = (where: SQL) =>
    db
      .select({ one: sql<number>`1`.as('one') })
      .from(payments)
      .where(and(where, ...conditions))
      .orderBy(desc(payments.createdAt), desc(payments.id))
      .limit(bound + 1);
  const countOf = async (counted: Parameters<ReturnType<DbOrTx['select']>['from']>[0]) => {
    const [row] = await db.select({ total: count() }).from(counted);
    return row?.total ?? 0;
  };
  let total: number;
  if (filter.customerEmail !== undefined) {
    const paying = customerTokens(db, filter.accountId, filter.customerEmail).as('paying');
    const paid = matches(and(eq(payments.tokenId, paying.id), inScope(filter)) as SQL).as('paid');
    total = await countOf(
      db
        .select({ one: paid.one })
        .from(paying)
        .crossJoinLateral(paid)
        .limit(bound + 1)
        .as('counted'),
    );
  } else {
    const [first, second, ...rest] = partsOf(filter).map(matches);
    total = await countOf((second ? unionAll(first!, second, ...rest).limit(bound + 1) : first!).as('counted'));
  }
  return total > bound ? { total: bound, totalCapped: true } : { total, totalCapped: false };
}

/**
 * The filter's total: a merchant's as before the console's filters came, exact; the account's, or with a card, a
 * customer, an amount or `createdGte`/`createdLte`, counted to a bound.
 */
async function totalOf(
  db: DbOrTx,
  filter: PaymentListFilter,
  conditions: SQL[],
): Promise<{ total: number; totalCapped: boolean }> {
  if (merchantListAsBefore(filter)) return { total: await totalAsBefore(db, filter, conditions), totalCapped: false };
  return totalToBound(db, filter, conditions);
}

/**
 * Reads by key (a card's last four, a customer's tokens) with bitmap scans off, in a transaction of their own: each
 * key's records are then read along its index newest first, and the read stops at the page's end. The planner,
 * sure from its averages that a key has a handful of records, would otherwise gather every record of a busy key
 * and sort them: a customer with 20,000 records took 540 ms a page instead of 2 (docs/decisions.md, Every console
 * filter is an API filter). `set local` is what the builder cannot write.
 */
function readByKey<T>(db: DbOrTx, read: (tx: DbOrTx) => Promise<T>): Promise<T> {
  return withTransaction(db, async (tx) => {
    await tx.execute(sql`set local enable_bitmapscan = off`);
    return read(tx);
  });
}

/**
 * The records of an account, or of one of its merchants as primary or as split receiver, newest first, with the
 * filter's total. A listing is the builder's (its filters vary), and gives the same `Payment` as a read by id.
 */
export async function listPaymentRecords(db: DbOrTx, filter: PaymentListFilter): Promise<PaymentListPage> {
  const conditions = conditionsOf(filter);
  const read = (on: DbOrTx) => Promise.all([readPage(on, filter, conditions), totalOf(on, filter, conditions)]);
  const byKey = filter.last4 !== undefined || filter.customerEmail !== undefined;
  const [rows, totals] = byKey ? await readByKey(db, read) : await read(db);
  return { ...keysetPage(rows, filter.limit, filter.keyset), ...totals };
}
