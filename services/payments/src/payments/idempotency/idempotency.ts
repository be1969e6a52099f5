import { IDEMPOTENCY_KEY_HEADER } from '@pps/shared/contract';
import {
  type DbOrTx,
  isTransaction,
  type Part,
  pipelinedTransaction,
  type Sent,
  sendTogether,
  type Tx,
} from '@pps/shared/db';
import { ApiError } from '@pps/shared/http';
import { type PaymentResource, paymentDocument } from '../model/payments.presenter';
import { requestHash } from './canonical';
import type { KeyClaim } from './claims';
import {
  answersPart,
  claimIdempotencyKey,
  deleteIdempotencyKeyCreatedAt,
  findIdempotencyKey,
  type IdempotencyKeyRef,
  idempotencyCutoff,
  type KeyRow,
  type StoredResponse,
} from './idempotency.repository';

export type IdempotentResponse = StoredResponse & { replayed: boolean };
/** What an idempotent operation produces: the response to store, and the record it made. */
export type OperationResult = StoredResponse & {
  paymentId: string | null;
  /**
   * The operation's last writes, not sent yet: they go out as one statement with the stored answer, and the COMMIT
   * behind it, so the end of a request costs one round trip and one statement.
   */
  writes?: Part[];
};

/**
 * An idempotency key and where the client gave it: `data.requestId` in the body, or the `Idempotency-Key` header.
 * Errors about the key point where it was given.
 */
export type GivenKey = { value: string; from: 'body' | 'header' };

const REQUEST_ID_POINTER = '/data/requestId';

const keySource = (key: GivenKey) =>
  key.from === 'body' ? { pointer: REQUEST_ID_POINTER } : { parameter: IDEMPOTENCY_KEY_HEADER };

export const idempotencyKeyReused = (key: GivenKey) =>
  new ApiError({
    status: 409,
    code: 'idempotency_key_reused',
    detail:
      key.from === 'body'
        ? 'This requestId was already used with a different request body; use a new requestId'
        : 'This Idempotency-Key was already used with a different request body; use a new key',
    ...keySource(key),
  });

/**
 * A replay of a key whose first request is still in flight (claimed, its payment waiting for the processor): it is
 * never run twice, and its answer is not known yet. `Retry-After: 1`: the answer is usually a processor call away.
 */
export const idempotencyKeyInUse = (key: GivenKey) =>
  new ApiError({
    status: 409,
    code: 'idempotency_key_in_use',
    detail:
      key.from === 'body'
        ? 'The first request with this requestId is still being processed; retry it in a moment for its answer'
        : 'The first request with this Idempotency-Key is still being processed; retry it in a moment for its answer',
    ...keySource(key),
    headers: { 'retry-after': '1' },
  });

export const idempotencyKeyMismatch = () =>
  new ApiError({
    status: 400,
    code: 'idempotency_key_mismatch',
    detail: 'data.requestId and the Idempotency-Key header name different keys; send the key once, or the same in both',
    pointer: REQUEST_ID_POINTER,
  });

/**
 * The key of a POST /payments, from the body's `data.requestId` and the `Idempotency-Key` header (both validated
 * as UUIDs already): either alone, or both when they name the same key. Keys are case-insensitive, so equal means
 * equal once lower-cased. Two different keys are refused rather than one chosen: either choice would replay or
 * reject what the client meant by the other.
 */
export function idempotencyKeyOf(input: { requestId?: string; header?: string }): GivenKey | undefined {
  const { requestId, header } = input;
  if (requestId !== undefined && header !== undefined && requestId.toLowerCase() !== header.toLowerCase()) {
    throw idempotencyKeyMismatch();
  }
  if (requestId !== undefined) return { value: requestId, from: 'body' };
  return header !== undefined ? { value: header, from: 'header' } : undefined;
}

/** What `runIdempotent` runs, and with what key; `runInPhases` takes the same, less the operation. */
export type IdempotentRun<R> = {
  db: DbOrTx;
  accountId: string;
  /**
   * The raw `data` of the request, fingerprinted without its `requestId`: a request keyed by the header and the
   * same one keyed by `data.requestId` are the same request.
   */
  data: { requestId?: unknown };
  /** Absent: no idempotency. */
  key: GivenKey | undefined;
  ttlDays: number;
  /** Where the links of an answer rendered from a payment's first event point (PUBLIC_BASE_URL; `answerOf`). */
  baseUrl: string;
  /** Real time: keys expire by the wall clock, not the sandbox clock. */
  now: Date;
  /**
   * The operation's reads, sent right behind the claim (the same round trip) and handed to `operation`; on a
   * replay they are dropped. It must not reject: return settled results and judge them in `operation`.
   */
  prefetch?: (tx: Tx) => Promise<R>;
  operation: (tx: Tx, prefetched: R | undefined) => Promise<OperationResult>;
};

/**
 * Runs `operation` in one transaction (BEGIN and COMMIT travel with its first and last statements), idempotently
 * when a key is given (docs/design.md): the key is claimed first in that transaction and its response
 * recorded before commit, so N concurrent duplicates make one record and the others replay it. A thrown error
 * rolls the claim back: failures that made nothing are never stored.
 */
export async function runIdempotent<R = never>(options: IdempotentRun<R>): Promise<IdempotentResponse> {
  const { operation, prefetch, key: given } = options;
  return inTransaction<IdempotentResponse>(options.db, async (tx) => {
    if (!given) {
      const outcome = await operation(tx, await prefetch?.(tx));
      const writes = outcome.writes ?? [];
      return {
        result: { status: outcome.status, body: outcome.body, replayed: false },
        pending: writes.length > 0 ? [sendTogether(tx, writes)] : [],
      };
    }
    const key: IdempotencyKeyRef = { accountId: options.accountId, requestId: given.value.toLowerCase() };
    const hash = requestHash(options.data);
    const claimed = claimOrReplay(tx, options, key, hash, given);
    const prefetched = prefetch?.(tx);
    const replay = await claimed;
    if (replay) return { result: { ...replay, replayed: true } };
    const outcome = await operation(tx, await prefetched);
    return {
      result: { status: outcome.status, body: outcome.body, replayed: false },
      pending: [sendTogether(tx, [...(outcome.writes ?? []), answersPart([{ key, response: outcome }])])],
    };
  });
}

/** The claim of the key the request gave: the key as stored (lower case) and the request's fingerprint. */
export function keyClaimOf(
  given: GivenKey,
  options: Pick<IdempotentRun<never>, 'accountId' | 'data' | 'ttlDays' | 'now'>,
): KeyClaim {
  return {
    accountId: options.accountId,
    requestId: given.value.toLowerCase(),
    requestHash: requestHash(options.data),
    now: options.now,
    ttlDays: options.ttlDays,
  };
}

/** A pipelined transaction of its own, or the caller's transaction (its writes awaited here). */
async function inTransaction<T>(
  db: DbOrTx,
  fn: (tx: Tx) => Promise<{ result: T; pending?: Sent<unknown>[] }>,
): Promise<T> {
  if (isTransaction(db)) {
    const { result, pending } = await fn(db);
    await Promise.all(pending ?? []);
    return result;
  }
  return pipelinedTransaction(db, fn);
}

/**
 * Claims the key for this transaction (undefined), or returns the committed answer to replay; 409 when that answer
 * was for another body. An expired holder is removed and the key claimed afresh.
 */
async function claimOrReplay(
  tx: Tx,
  options: Pick<IdempotentRun<unknown>, 'now' | 'ttlDays' | 'baseUrl'>,
  key: IdempotencyKeyRef,
  hash: string,
  given: GivenKey,
  retried = false,
): Promise<StoredResponse | undefined> {
  const claim = await claimIdempotencyKey(tx, { ...key, requestHash: hash, now: options.now });
  if (claim.claimed) return undefined;
  // Committed while the claim waited: not in that statement's snapshot, visible to the next one.
  const held = claim.held ?? (await findIdempotencyKey(tx, key));
  const expired = held && held.createdAt < idempotencyCutoff(options.now, options.ttlDays);
  if (!held || expired) {
    if (retried) throw new Error(`idempotency key ${key.requestId} neither claimable nor held`);
    if (held) await deleteIdempotencyKeyCreatedAt(tx, key, held.createdAt);
    return claimOrReplay(tx, options, key, hash, given, true);
  }
  return replayOf(held, hash, given, options.baseUrl);
}

/** The answer a held key replays: 409 when it was given for another body, or when it is not known yet. */
export function replayOf(held: KeyRow, hash: string, given: GivenKey, baseUrl: string): StoredResponse {
  if (held.requestHash !== hash) throw idempotencyKeyReused(given);
  const answer = answerOf(held, baseUrl);
  // Committed without its answer: a new payment between its phases (`runInPhases`).
  if (!answer) throw idempotencyKeyInUse(given);
  return answer;
}

/**
 * The events whose resource a new payment's 201 answered with: an approved payment's first event is one of them,
 * and so is a payment's that waited for its cardholder's 3-D Secure challenge (its replays answer that wait).
 */
const APPROVED_FIRST_EVENTS = new Set(['payment.created', 'payment.authorized', 'payment.requires_action']);

/**
 * A held key's answer, or undefined while its payment is in flight. Stored on the key, for every answer but a new
 * payment's 201: that one is the resource its first event carries (the same object, written once, in the same
 * commit: docs/design.md, The payment write path), in the document a retrieval of it serves, links at `baseUrl`.
 */
export function answerOf(held: KeyRow, baseUrl: string): StoredResponse | undefined {
  if (held.responseStatus != null && held.responseBody) return { status: held.responseStatus, body: held.responseBody };
  if (!held.firstEvent || !APPROVED_FIRST_EVENTS.has(held.firstEvent.type)) return undefined;
  const { previousStatus: _previous, sequence: _sequence, ...resource } = held.firstEvent.data;
  return { status: 201, body: paymentDocument(baseUrl, resource as PaymentResource) };
}
