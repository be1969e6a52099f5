import { setTimeout as sleep } from 'node:timers/promises';
import { type Admission, isDatabaseUnavailable } from '@pps/shared/db';
import { ApiError } from '@pps/shared/http';
import type { ClaimResult, KeyClaim } from '../idempotency/claims';
import {
  answerOf,
  type IdempotentResponse,
  type IdempotentRun,
  keyClaimOf,
  replayOf,
} from '../idempotency/idempotency';
import { findIdempotencyKey, idempotencyCutoff, type StoredResponse } from '../idempotency/idempotency.repository';

/**
 * A new payment in three phases (docs/design.md, Idempotency and concurrency): what `runInPhases` needs of it once
 * it is checked and priced.
 */
export type Phased<A> = {
  paymentId: string;
  /**
   * Phase 1, committed (group-committed with concurrent payments' claims): the key claimed, naming the payment (so
   * recovery finds its way back), and the record claimed `processing` (`payment_claims`); or the key's holder.
   */
  claim: (key: KeyClaim | undefined) => Promise<ClaimResult>;
  /** Phase 2: the processor, called with no transaction open and no connection held. */
  call: () => Promise<A>;
  /**
   * Phase 3, committed (group-committed with concurrent payments' outcomes): the outcome's answer, stored on the
   * key with it, or undefined when the record's claim is gone (recovery resolved it meanwhile; its answer is the
   * key's).
   */
  record: (answer: A) => Promise<StoredResponse | undefined>;
};

/**
 * A new card or ACH payment, idempotently when a key is given, in three phases so no transaction and no pooled
 * connection waits on the processor. `begin` reads and checks the request and prices it (no transaction: reads
 * only). Then (1) one commit claims the key and the record `processing` (a replay meanwhile is a 409
 * `idempotency_key_in_use`); (2) `call`, outside any transaction; (3) one commit takes the record's claim, if it is
 * still there, and inserts the record with its outcome (a refusal's answer stored on the key). Phases 1 and 3 are
 * group-committed with other payments' (each phase a named step: `phases.ts`). A refusal by `begin` stores
 * nothing; an error in phase 2 or 3 leaves the claim to recovery. `checkAndClaim` runs the checks and phase 1,
 * `recordAnswer` phase 3.
 */
export async function runInPhases<A>(
  options: Omit<IdempotentRun<never>, 'operation' | 'prefetch'> & {
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
  return recordAnswer(phased, answer, claim, options);
}

/**
 * Phase 3 with the processor's answer in hand. It is recorded, not left to recovery, when the database was away for
 * a moment (restarting, failing over, frozen and timing the statement out when it thawed): phase 3 again finds the
 * claim gone, and the key's answer, if the lost commit went through.
 */
async function recordAnswer<A>(
  phased: Phased<A>,
  answer: A,
  claim: KeyClaim | undefined,
  options: Pick<IdempotentRun<never>, 'db' | 'baseUrl'>,
): Promise<IdempotentResponse> {
  const expired = retryWindow();
  for (;;) {
    try {
      const recorded = await phased.record(answer);
      if (recorded) return { ...recorded, replayed: false };
      const held = claim && (await findIdempotencyKey(options.db, claim));
      const stored = held && answerOf(held, options.baseUrl);
      if (!stored) throw new Error(`payment ${phased.paymentId} was resolved without this request, and has no answer`);
      return { ...stored, replayed: false };
    } catch (error) {
      if (!isDatabaseUnavailable(error) || expired()) throw error;
      await sleep(PHASE_RETRY_PAUSE_MS);
    }
  }
}

/**
 * The checks (`begin`) and phase 1: the payment claimed and recorded `processing`, or the answer a held key replays.
 */
async function checkAndClaim<A>(
  options: Pick<IdempotentRun<never>, 'db' | 'accountId' | 'data' | 'key' | 'ttlDays' | 'now' | 'baseUrl'> & {
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
    return { replay: replayOf(held, claim.requestHash, given, options.baseUrl) };
  }
  const claimed = await claimAndInsert(phased, claim);
  if (claimed.claimed) return { phased, claim };
  if (!claim || !given) throw new Error(`payment ${phased.paymentId}: no key, yet not claimed`);
  return { replay: replayOf(claimed.held, claim.requestHash, given, options.baseUrl) };
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
  const expired = retryWindow();
  let freed = 0;
  for (;;) {
    let result: ClaimResult;
    try {
      result = await phased.claim(claim);
    } catch (error) {
      if (!claim || !isDatabaseUnavailable(error) || expired()) throw error;
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

/**
 * Whether a phase's retries are over: `PHASE_RETRY_MS` from its first failure, not from its first try, which may
 * have waited out a frozen database before it failed.
 */
function retryWindow(): () => boolean {
  let closesAt: number | undefined;
  return () => {
    closesAt ??= Date.now() + PHASE_RETRY_MS;
    return Date.now() >= closesAt;
  };
}
