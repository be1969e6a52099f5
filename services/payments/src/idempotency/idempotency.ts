import { setTimeout as sleep } from 'node:timers/promises';
import { IDEMPOTENCY_KEY_HEADER } from '@pps/shared/contract';
import {
  type Admission,
  type DbOrTx,
  isDatabaseUnavailable,
  isTransaction,
  type Part,
  pipelinedTransaction,
  type Sent,
  sendTogether,
  type Tx,
} from '@pps/shared/db';
import { ApiError } from '@pps/shared/http';
import { requestHash } from './canonical';
import type { ClaimResult, KeyClaim } from './claims';
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

type Options<R> = {
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
export async function runIdempotent<R = never>(options: Options<R>): Promise<IdempotentResponse> {
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

/**
 * A new payment in three phases (docs/design.md, Idempotency and concurrency): what `runInPhases` needs of it once
 * it is checked and priced.
 */
export type Phased<A> = {
  paymentId: string;
  /**
   * Phase 1, committed (group-committed with concurrent payments' claims): the key claimed, naming the payment (so
   * recovery finds its way back), and the record inserted `processing`; or the key's holder.
   */
  claim: (key: KeyClaim | undefined) => Promise<ClaimResult>;
  /** Phase 2: the processor, called with no transaction open and no connection held. */
  call: () => Promise<A>;
  /**
   * Phase 3, committed (group-committed with concurrent payments' outcomes): the outcome's answer, stored on the
   * key with it, or undefined when the record is no longer `processing` (recovery resolved it meanwhile; its answer
   * is the key's).
   */
  record: (answer: A) => Promise<StoredResponse | undefined>;
};

/**
 * A new card or ACH payment, idempotently when a key is given, in three phases so no transaction and no pooled
 * connection waits on the processor. `begin` reads and checks the request and prices it (no transaction: reads
 * only). Then (1) one commit claims the key and inserts the record `processing` (a replay meanwhile is a 409
 * `idempotency_key_in_use`); (2) `call`, outside any transaction; (3) one commit records the outcome, conditional
 * on the record still being `processing`, with the answer stored on the key. Phases 1 and 3 are group-committed
 * with other payments' (`Phased.claim`, `Phased.record`). A refusal by `begin` stores nothing; an error in phase 2
 * or 3 leaves the record to recovery.
 */
export async function runInPhases<A>(
  options: Omit<Options<never>, 'operation' | 'prefetch'> & {
    begin: () => Promise<Phased<A>>;
    /** The turn phase 1 waits for (`PAYMENT_ADMISSION_LIMIT`); none: at once. */
    admission?: Admission;
  },
): Promise<IdempotentResponse> {
  const admitted = options.admission
    ? await options.admission.run(() => checkAndClaim(options))
    : await checkAndClaim(options);
  if ('replay' in admitted) return { ...admitted.replay, replayed: true };
  const { phased, claim } = admitted;
  const answer = await phased.call();
  // The answer in hand is recorded, not left to recovery, when the database was away for a moment (restarting,
  // failing over): phase 3 again, conditional on `processing`, finds the stored answer if the lost commit went through.
  const giveUpAt = Date.now() + PHASE_RETRY_MS;
  for (;;) {
    try {
      const recorded = await phased.record(answer);
      if (recorded) return { ...recorded, replayed: false };
      const held = claim && (await findIdempotencyKey(options.db, claim));
      if (held?.responseStatus == null || !held.responseBody) {
        throw new Error(`payment ${phased.paymentId} was resolved without this request, and has no stored answer`);
      }
      return { status: held.responseStatus, body: held.responseBody, replayed: false };
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() >= giveUpAt) throw error;
      await sleep(PHASE_RETRY_PAUSE_MS);
    }
  }
}

/** The claim of the key the request gave: the key as stored (lower case) and the request's fingerprint. */
export function keyClaimOf(
  given: GivenKey,
  options: Pick<Options<never>, 'accountId' | 'data' | 'ttlDays' | 'now'>,
): KeyClaim {
  return {
    accountId: options.accountId,
    requestId: given.value.toLowerCase(),
    requestHash: requestHash(options.data),
    now: options.now,
    ttlDays: options.ttlDays,
  };
}

/**
 * The checks (`begin`) and phase 1: the payment claimed and recorded `processing`, or the answer a held key replays.
 */
async function checkAndClaim<A>(
  options: Pick<Options<never>, 'db' | 'accountId' | 'data' | 'key' | 'ttlDays' | 'now'> & {
    begin: () => Promise<Phased<A>>;
  },
): Promise<{ replay: StoredResponse } | { phased: Phased<A>; claim: KeyClaim | undefined }> {
  const { key: given } = options;
  const claim = given && keyClaimOf(given, options);
  let phased: Phased<A>;
  try {
    phased = await options.begin();
  } catch (error) {
    // A replay gets its first answer whatever its checks say now (a merchant closed since, a token deleted since).
    const held = claim && given && error instanceof ApiError ? await findIdempotencyKey(options.db, claim) : undefined;
    if (!claim || !given || !held || held.createdAt < idempotencyCutoff(options.now, options.ttlDays)) throw error;
    return { replay: replayOf(held, claim.requestHash, given) };
  }
  const claimed = await claimAndInsert(phased, claim);
  if (claimed.claimed) return { phased, claim };
  if (!claim || !given) throw new Error(`payment ${phased.paymentId}: no key, yet not claimed`);
  return { replay: replayOf(claimed.held, claim.requestHash, given) };
}

/**
 * Phase 1, submitted again when the key's holder had expired (removed by that try) or went while it was read; and,
 * for up to 2 s, when the database went away under it (a restart, a failover), since the key tells whether the lost
 * commit went through: held for this very payment, it did. Without a key nothing can tell, so the error stands (a
 * record its lost commit left is failed by recovery: the processor was never called).
 */
async function claimAndInsert<A>(
  phased: Phased<A>,
  claim: KeyClaim | undefined,
): Promise<Exclude<ClaimResult, { retry: true }>> {
  const giveUpAt = Date.now() + PHASE_RETRY_MS;
  let freed = 0;
  for (;;) {
    let result: ClaimResult;
    try {
      result = await phased.claim(claim);
    } catch (error) {
      if (!claim || !isDatabaseUnavailable(error) || Date.now() >= giveUpAt) throw error;
      await sleep(PHASE_RETRY_PAUSE_MS);
      continue;
    }
    if ('retry' in result) {
      freed += 1;
      if (freed === 3) throw new Error(`idempotency key ${claim?.requestId} neither claimable nor held`);
      continue;
    }
    if (!result.claimed && result.held.paymentId === phased.paymentId) return { claimed: true };
    return result;
  }
}

/** How long phases 1 and 3 are tried again after the database went away, and the pause between tries. */
const PHASE_RETRY_MS = 2000;
const PHASE_RETRY_PAUSE_MS = 200;

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
  options: Pick<Options<unknown>, 'now' | 'ttlDays'>,
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
  return replayOf(held, hash, given);
}

/** The answer a held key replays: 409 when it was given for another body, or when it is not known yet. */
export function replayOf(held: KeyRow, hash: string, given: GivenKey): StoredResponse {
  if (held.requestHash !== hash) throw idempotencyKeyReused(given);
  // Committed without its answer: a new payment between its phases (`runInPhases`).
  if (held.responseStatus == null || !held.responseBody) throw idempotencyKeyInUse(given);
  return { status: held.responseStatus, body: held.responseBody };
}
