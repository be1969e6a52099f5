import type { DbOrTx } from '@pps/shared/db';
import { mapSent, type Part, rowMapper, type Sent, schema, send, tableCodec, texts } from '@pps/shared/db';
import { getTableColumns } from 'drizzle-orm';

const { merchants, paymentClaims, payments } = schema;

export type Payment = schema.Payment;
export type NewPayment = schema.NewPayment;

/** What taking a payment needs to know about a merchant (the merchants service owns the table; we only read). */
export type MerchantForPayment = Pick<
  schema.Merchant,
  'id' | 'accountId' | 'status' | 'avsMode' | 'feeRateBasisPoints' | 'feeFixedCents' | 'features'
>;

const merchantCodec = tableCodec(merchants);
const paymentCodec = tableCodec(payments);
const claimCodec = tableCodec(paymentClaims);

const merchantForPayment = merchantCodec.pick([
  'id',
  'accountId',
  'status',
  'avsMode',
  'feeRateBasisPoints',
  'feeFixedCents',
  'features',
]);
const FIND_MERCHANT = `select ${merchantForPayment.columns} from merchants where id = $1`;

/** The merchant fields a payment needs; sent at once (the hot path's reads share a round trip). */
export function findMerchant(db: DbOrTx, id: string): Sent<MerchantForPayment | undefined> {
  return mapSent(send(db, FIND_MERCHANT, [id]), ([row]) => row && merchantForPayment.read(row));
}

const FIND_MERCHANTS = `select ${merchantForPayment.columns} from merchants where id = any($1::text[])`;

/** `findMerchant` for a batch (group commit), by id; sent at once. */
export function findMerchants(db: DbOrTx, ids: string[]): Sent<Map<string, MerchantForPayment>> {
  return mapSent(send(db, FIND_MERCHANTS, [[...new Set(ids)]]), (rows) => {
    const found = rows.map(merchantForPayment.read);
    return new Map(found.map((merchant) => [merchant.id, merchant]));
  });
}

/**
 * A new record's insert as a write to send with others (`sendTogether`), and the record as written (every column
 * the values give, null for the rest: what `returning *` would read back).
 */
export function paymentInsertPart(values: NewPayment): { payment: Payment; part: Part } {
  return {
    payment: paymentCodec.row(values),
    part: { text: paymentCodec.insertText, params: paymentCodec.params(values) },
  };
}

/** New records' insert as one write to send with others, however many (group commit, phase 1). */
export function paymentsInsertPart(rows: NewPayment[]): Part {
  return { text: paymentCodec.insertManyText, params: paymentCodec.manyParams(rows) };
}

/**
 * New payments' claims as one write to send with others, however many (group commit, phase 1): each record
 * `processing`, in `payment_claims` until its outcome is recorded (docs/design.md, The payment write path).
 */
export function claimsInsertPart(rows: NewPayment[]): Part {
  return { text: claimCodec.insertManyText, params: claimCodec.manyParams(rows) };
}

/** The columns a new payment's outcome sets (phase 3, or recovery) on its claimed record. */
export type PaymentOutcome = Pick<
  Payment,
  | 'status'
  | 'code'
  | 'message'
  | 'authCode'
  | 'avsResult'
  | 'card'
  | 'settleAt'
  | 'authorizationExpiresAt'
  | 'failedAt'
  | 'updatedAt'
> &
  Partial<Pick<Payment, 'threeDSecure' | 'nextAction'>>;
const outcomeKeys = [
  'status',
  'code',
  'message',
  'authCode',
  'avsResult',
  'card',
  'settleAt',
  'authorizationExpiresAt',
  'failedAt',
  'updatedAt',
  'threeDSecure',
  'nextAction',
] as const satisfies readonly (keyof PaymentOutcome)[];
const column = (key: keyof Payment) => `"${payments[key].name}"`;
/**
 * Claimed records into `payments` with their outcomes, one row per record: the claim's columns as phase 1 wrote
 * them, the outcome's cast back from text (group commit: one statement for a batch), `processing_since` cleared. The
 * claims are taken (deleted, returning their rows) by `pps_take_claims`: the record's own columns never travel
 * again, only its outcome does.
 */
const RECORD_CLAIMS = (() => {
  const outcome = new Set<string>(outcomeKeys);
  const keys = Object.keys(getTableColumns(payments)) as (keyof Payment)[];
  const value = (key: keyof Payment) =>
    key === 'processingSince'
      ? 'null'
      : outcome.has(key)
        ? `o.${column(key)}::${payments[key].getSQLType()}`
        : `claim.${column(key)}`;
  return `insert into payments (${keys.map(column).join(', ')})
  select ${keys.map(value).join(', ')}
  from pps_take_claims($1::text[]) as claim
  join unnest($1::text[], ${outcomeKeys.map((_, index) => `$${index + 2}::text[]`).join(', ')})
    as o(id, ${outcomeKeys.map(column).join(', ')}) on o.id = claim.id`;
})();

/**
 * Claimed records with their outcomes (phase 3, or recovery) as one write to send with others, however many: each
 * record inserted into `payments` once, from its claim, which is deleted. Their claims must be locked first
 * (`lockClaims`), so none is taken meanwhile.
 */
export function recordClaimsPart(outcomes: { id: string; outcome: PaymentOutcome }[]): Part {
  return {
    text: RECORD_CLAIMS,
    params: [
      texts(outcomes.map(({ id }) => id)),
      ...outcomeKeys.map((key) =>
        outcomes.map(({ outcome }) => {
          const value = outcome[key];
          return value == null ? null : String(payments[key].mapToDriverValue(value as never));
        }),
      ),
    ],
  };
}

/** A new record as the table returns it: the values given, null for the rest (what `returning *` would read). */
export const insertedPayment = (values: NewPayment): Payment => paymentCodec.row(values);

// A record is read by id one way, here: `GET /payments/{id}` reads it raw beside its children, and the locks
// read the same columns with FOR UPDATE, so all give the same `Payment`. A new payment between its phases is its
// claim (`processing`, served as `pending`), read only when the id is not in `payments`: the commit that records a
// payment inserts its record and deletes its claim, so a read that misses the record finds the claim, or nothing.
// `payment_claims` is read by id only through its functions (`pps_claims`, `pps_lock_claims`, `pps_take_claims`,
// migration 0033), which plan with sequential scans off: the table's few live rows sit among every claim recorded
// since its last vacuum, and a plan kept from a moment it looked empty would read them all (recovery alone reads it
// whole, oldest first).
const paymentRow = paymentCodec.pick();
const FIND_PAYMENT = `select ${paymentRow.columns} from payments where id = $1`;
const FIND_CLAIMS = `select ${paymentRow.columns} from pps_claims($1::text[])`;

/** The claims of these ids (payments between their phases), read when their records were not found. */
const findClaims = async (db: DbOrTx, ids: string[]) => (await send(db, FIND_CLAIMS, [ids])).map(paymentRow.read);

/**
 * A payment record by id, or its claim; sent at once (`GET /payments/{id}` reads it beside its children). An id not
 * in `payments` (in flight, or no payment's) costs a second round trip, to its claim.
 */
export function findPayment(db: DbOrTx, id: string): Sent<Payment | undefined> {
  return send(db, FIND_PAYMENT, [id]).then(async ([row]) =>
    row ? paymentRow.read(row) : (await findClaims(db, [id]))[0],
  ) as Sent<Payment | undefined>;
}

const LOCK_PAYMENTS = `select ${paymentRow.columns} from payments where id = any($1::text[]) order by id for update`;

/**
 * Reads payments and holds their row locks until the transaction ends (`SELECT … FOR UPDATE`), in id order (two
 * batches never wait on each other in a circle): every operation on a parent (capture, void, refund, split refund,
 * second split) takes them first, so they run one at a time. A payment still between its phases is read from its
 * claim, unlocked, in a second round trip: it is `processing`, which every operation refuses. Sent at once.
 */
export function lockPayments(tx: DbOrTx, ids: string[]): Sent<Payment[]> {
  return send(tx, LOCK_PAYMENTS, [ids]).then(async (rows) => {
    const locked = rows.map(paymentRow.read);
    const found = new Set(locked.map((payment) => payment.id));
    const missing = ids.filter((id) => !found.has(id));
    return missing.length > 0 ? [...locked, ...(await findClaims(tx, missing))] : locked;
  }) as Sent<Payment[]>;
}

const LOCK_CLAIMS = `select ${paymentRow.columns} from pps_lock_claims($1::text[])`;

/** The statement `lockClaims` sends. */
export const lockClaimsPart = (ids: string[]): Part => ({ text: LOCK_CLAIMS, params: [ids] });

/**
 * New payments' claims, to record their outcomes (phase 3, or recovery): their records, `processing`, locked until
 * the transaction ends, in id order. A claim another transaction is recording is waited for, and then is gone: each
 * is recorded once, by whichever locked it first (`recordClaimsPart`). Sent at once.
 */
export function lockClaims(tx: DbOrTx, ids: string[]): Sent<Payment[]> {
  const { text, params } = lockClaimsPart(ids);
  return mapSent(send(tx, text, params), (rows) => rows.map(paymentRow.read));
}

/** The child records of a payment (refunds, voids, split refunds, second splits) that its resource summarises. */
export type PaymentChild = Pick<
  Payment,
  'id' | 'paymentType' | 'status' | 'amount' | 'splitMerchantId' | 'splitAmount' | 'refundType' | 'createdAt'
>;

const childRow = paymentCodec.pick([
  'id',
  'paymentType',
  'status',
  'amount',
  'splitMerchantId',
  'splitAmount',
  'refundType',
  'createdAt',
]);
const FIND_CHILDREN = `select ${childRow.columns} from payments where parent_payment_id = $1 order by created_at, id`;

/** The child records of a payment, oldest first; sent at once. */
export function findChildren(db: DbOrTx, parentId: string): Sent<PaymentChild[]> {
  return mapSent(send(db, FIND_CHILDREN, [parentId]), (rows) => rows.map(childRow.read));
}

const FIND_CHILDREN_OF = `select ${childRow.columns}, parent_payment_id from payments
  where parent_payment_id = any($1::text[]) order by created_at, id`;
const parentIdOf = rowMapper({ parentPaymentId: payments.parentPaymentId });

/** `findChildren` for a batch (group commit): each payment's children, oldest first, by its id; sent at once. */
export function findChildrenOf(db: DbOrTx, parentIds: string[]): Sent<Map<string, PaymentChild[]>> {
  return mapSent(send(db, FIND_CHILDREN_OF, [parentIds]), (rows) => {
    const byParent = new Map<string, PaymentChild[]>();
    for (const row of rows) {
      const parentId = parentIdOf(row).parentPaymentId ?? '';
      byParent.set(parentId, [...(byParent.get(parentId) ?? []), childRow.read(row)]);
    }
    return byParent;
  });
}
