import { type DbOrTx, isUniqueViolation, type Tx, withTransaction } from '@pps/shared/db';
import { ApiError } from '@pps/shared/http';
import { requestHash } from './canonical';
import {
  claimIdempotencyKey,
  deleteIdempotencyKeyCreatedAt,
  findIdempotencyKey,
  type IdempotencyKeyRef,
  idempotencyCutoff,
  recordIdempotentResponse,
  type StoredResponse,
} from './idempotency.repository';

const IDEMPOTENCY_KEY_CONSTRAINT = 'idempotency_keys_pk';

export type IdempotentResponse = StoredResponse & { replayed: boolean };
/** What an idempotent operation produces: the response to store, and the record it made. */
export type OperationResult = StoredResponse & { paymentId: string | null };

export const idempotencyKeyReused = () =>
  new ApiError({
    status: 409,
    code: 'idempotency_key_reused',
    detail: 'This requestId was already used with a different request body; use a new requestId',
    pointer: '/data/requestId',
  });

type Options = {
  db: DbOrTx;
  accountId: string;
  /** The raw `data` of the request (its requestId included); absent requestId means no idempotency. */
  data: { requestId?: unknown };
  requestId: string | undefined;
  ttlDays: number;
  /** Real time: keys expire by the wall clock, not the sandbox clock. */
  now: Date;
  operation: (tx: Tx) => Promise<OperationResult>;
};

/**
 * Runs `operation` in one transaction, idempotently when a requestId is given (docs/design.md): the key is claimed
 * first in that transaction and its response recorded before commit, so N concurrent duplicates make one record
 * and the others replay it. A thrown error rolls the claim back: failures that made nothing are never stored.
 */
export async function runIdempotent(options: Options): Promise<IdempotentResponse> {
  const { db, operation } = options;
  if (!options.requestId) {
    const result = await withTransaction(db, operation);
    return { status: result.status, body: result.body, replayed: false };
  }
  const key: IdempotencyKeyRef = { accountId: options.accountId, requestId: options.requestId.toLowerCase() };
  const hash = requestHash(options.data);
  const known = await storedResponse(options, key, hash);
  if (known) return { ...known, replayed: true };
  try {
    const result = await withTransaction(db, async (tx) => {
      await claimIdempotencyKey(tx, { ...key, requestHash: hash, now: options.now });
      const outcome = await operation(tx);
      await recordIdempotentResponse(tx, key, outcome);
      return outcome;
    });
    return { status: result.status, body: result.body, replayed: false };
  } catch (error) {
    if (!isUniqueViolation(error, IDEMPOTENCY_KEY_CONSTRAINT)) throw error;
    // A concurrent duplicate committed first: read its answer afresh.
    const replay = await storedResponse(options, key, hash);
    if (replay) return { ...replay, replayed: true };
    throw error;
  }
}

/** The committed response of this key, a 409 when the body differs, or nothing (unknown or expired key). */
async function storedResponse(options: Options, key: IdempotencyKeyRef, hash: string) {
  const row = await findIdempotencyKey(options.db, key);
  if (!row || row.responseStatus == null || !row.responseBody) return undefined;
  if (row.createdAt < idempotencyCutoff(options.now, options.ttlDays)) {
    await deleteIdempotencyKeyCreatedAt(options.db, key, row.createdAt);
    return undefined;
  }
  if (row.requestHash !== hash) throw idempotencyKeyReused();
  return { status: row.responseStatus, body: row.responseBody } satisfies StoredResponse;
}
