import {
  Batcher,
  type BatcherOptions,
  type Db,
  type Part,
  pipelinedTransaction,
  sendTogether,
  type Tx,
} from '@pps/shared/db';
import { firstEventsParts, sendEvents, type WriteEventInput } from '@pps/shared/events';
import { ApiError, type ServiceContext } from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import { makeAvailablePart, type PostInput, postingsPart } from '@pps/shared/ledger';
import { claimKeys, findHolders, type KeyClaim, keyOf, removeExpiredPart } from '../idempotency/claims';
import { type GivenKey, type IdempotentResponse, replayOf } from '../idempotency/idempotency';
import {
  answersPart,
  type IdempotencyKeyRef,
  idempotencyCutoff,
  type KeyRow,
  releaseKeysPart,
} from '../idempotency/idempotency.repository';
import { type StatusChange, transitionsParts } from '../model/payment-transition';
import {
  findChildrenOf,
  lockPayments,
  type NewPayment,
  type Payment,
  type PaymentChild,
  paymentsInsertPart,
} from '../model/payments.repository';
import { type ChildOutcome, judgeParent, type LockedParent } from './child-operation';

/**
 * An operation on an existing payment (a capture, refund, split refund or second split) to group-commit: the
 * request's context, its idempotency key if it gave one, the parent it names, and the use case, which judges the
 * parent (locked, with its children) and returns what to write without writing it.
 */
export type OperationItem = {
  ctx: ServiceContext;
  key: { claim: KeyClaim; given: GivenKey } | undefined;
  parentPaymentId: string;
  run: (ctx: ServiceContext, locked: LockedParent) => Promise<ChildOutcome>;
};

/**
 * What became of an item: its answer (made now, or replayed), its refusal, or `again`: it goes in a later batch,
 * because another item of this one names the same parent or key (it then sees that one's commit, as it would have
 * waited for that one's lock), or the expired holder of its key was removed.
 */
type ItemResult = { answer: IdempotentResponse } | { refused: unknown } | { again: 'turn' | 'expired' };

export type Operations = Batcher<OperationItem, ItemResult>;

/**
 * Operations on payments group-committed (docs/design.md, The payment write path): concurrent requests' keys claimed,
 * parents locked (in id order) and children read in one round trip; each use case then judges its parent in turn;
 * and every write of the batch (records, postings, events, status changes, stored answers) goes as one statement,
 * with the parents' events (their sequences counted on) and the COMMIT behind it. One operation per parent and per
 * key in a batch: the use cases judge what is committed, exactly as when each held the parent's row lock alone.
 * A refusal (a 4xx) stores nothing: its key is released. Anything else fails the batch, whose items then go one
 * by one (`Batcher`).
 */
export function operationsCommitter(db: Db, options: BatcherOptions): Operations {
  return new Batcher((items) => pipelinedTransaction(db, (tx) => runBatch(tx, items)), options);
}

/** Runs an operation through the group commit: its answer, or its refusal thrown. */
export async function runOperation(operations: Operations, item: OperationItem): Promise<IdempotentResponse> {
  for (let expired = 0; ; ) {
    const result = await operations.submit(item);
    if ('answer' in result) return result.answer;
    if ('refused' in result) throw result.refused;
    if (result.again === 'expired' && ++expired === 3) {
      throw new Error(`idempotency key ${item.key?.claim.requestId} neither claimable nor held`);
    }
  }
}

/**
 * One batch, in its transaction, in four named steps: the items whose turn it is (`takeTurns`); their keys claimed,
 * parents locked and children read in one round trip (`claimAndLock`); each item judged in turn (`judgeItem`),
 * its writes gathered; and the writes sent as one statement (`Writes.send`), the COMMIT behind them.
 */
async function runBatch(tx: Tx, all: OperationItem[]) {
  const items = takeTurns(all);
  const read = await claimAndLock(tx, items);
  const writes = new Writes();
  const done = new Map<OperationItem, ItemResult>();
  for (const item of items) {
    done.set(item, await judgeItem(item, { ...item.ctx, db: tx }, read, writes));
  }
  const pending = writes.send(tx);
  return { result: all.map((item): ItemResult => done.get(item) ?? { again: 'turn' }), pending };
}

/** The items of this batch: one operation per parent and per key; the rest wait for a later batch. */
function takeTurns(all: OperationItem[]): OperationItem[] {
  const parents = new Set<string>();
  const keys = new Set<string>();
  return all.filter((item) => {
    const key = item.key && keyOf(item.key.claim);
    if (parents.has(item.parentPaymentId) || (key && keys.has(key))) return false;
    parents.add(item.parentPaymentId);
    if (key) keys.add(key);
    return true;
  });
}

/** What a batch read under its locks: the keys it claimed, their holders, the parents locked and their children. */
type BatchReads = {
  claimed: Set<string>;
  holders: Map<string, KeyRow>;
  lockedById: Map<string, Payment>;
  children: Map<string, PaymentChild[]>;
};

/** The items' keys claimed (or their holders read), their parents locked in id order and children read, at once. */
async function claimAndLock(tx: Tx, items: OperationItem[]): Promise<BatchReads> {
  const claims = items.flatMap((item) => (item.key ? [item.key.claim] : []));
  const parentIds = [...new Set(items.map((item) => item.parentPaymentId))].filter((id) => isId('payment', id));
  const [claimed, holders, locked, children] = await Promise.all([
    claims.length > 0
      ? claimKeys(
          tx,
          claims.map((key) => ({ key, recordId: null })),
        )
      : new Set<string>(),
    claims.length > 0 ? findHolders(tx, claims) : new Map(),
    parentIds.length > 0 ? lockPayments(tx, parentIds) : [],
    parentIds.length > 0 ? findChildrenOf(tx, parentIds) : new Map(),
  ]);
  return { claimed, holders, lockedById: new Map(locked.map((payment) => [payment.id, payment])), children };
}

/**
 * One item judged under the batch's locks: a key another request holds replays its answer (or waits for a later
 * batch when it expired); else the use case judges the locked parent and its writes join the batch's. A refusal
 * stores nothing (its key released); anything else (a bug, the database) fails the batch.
 */
async function judgeItem(
  item: OperationItem,
  ctx: ServiceContext,
  read: BatchReads,
  writes: Writes,
): Promise<ItemResult> {
  const key = item.key?.claim;
  if (item.key && !read.claimed.has(keyOf(item.key.claim))) {
    const { claim, given } = item.key;
    const held = read.holders.get(keyOf(claim));
    if (held && held.createdAt >= idempotencyCutoff(claim.now, claim.ttlDays)) {
      try {
        const answer = replayOf(held, claim.requestHash, given, ctx.config.PUBLIC_BASE_URL);
        return { answer: { ...answer, replayed: true } };
      } catch (refusal) {
        return { refused: refusal };
      }
    }
    // Expired (removed if still the row read), or gone while it was read: claimed afresh in a later batch.
    if (held) writes.removed.push(removeExpiredPart(claim, held));
    return { again: 'expired' };
  }
  try {
    const parent = judgeParent(
      ctx,
      item.parentPaymentId,
      read.lockedById.get(item.parentPaymentId),
      read.children.get(item.parentPaymentId) ?? [],
    );
    const outcome = await item.run(ctx, parent);
    writes.add(outcome, key);
    return { answer: { status: outcome.response.status, body: outcome.response.body, replayed: false } };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (key) writes.released.push(key);
    return { refused: error };
  }
}

/** A batch's writes, gathered by table: one write each in one statement, whatever the batch's size. */
class Writes {
  readonly records: NewPayment[] = [];
  readonly postings: PostInput[] = [];
  readonly voids: { sourceId: string; at: Date }[] = [];
  readonly events: WriteEventInput[] = [];
  readonly changes: StatusChange[] = [];
  readonly parentEvents: WriteEventInput[] = [];
  readonly answers: Parameters<typeof answersPart>[0] = [];
  readonly released: IdempotencyKeyRef[] = [];
  readonly removed: Part[] = [];

  add(outcome: ChildOutcome, key: IdempotencyKeyRef | undefined) {
    this.records.push(outcome.record);
    if (outcome.posting) this.postings.push(outcome.posting);
    if (outcome.voids) this.voids.push(outcome.voids);
    this.events.push(outcome.event);
    if (outcome.parentChange) {
      this.changes.push(outcome.parentChange.change);
      this.parentEvents.push(outcome.parentChange.event);
    }
    if (key) this.answers.push({ key, response: outcome.response });
  }

  /**
   * The parents' events (their own statement: each sequence is counted on its parent's counter), then the rest as
   * one statement; the COMMIT goes behind them.
   */
  send(tx: Tx) {
    const parts: Part[] = [
      ...(this.records.length > 0 ? [paymentsInsertPart(this.records)] : []),
      ...postingsPart(this.postings).parts,
      ...(this.voids.length > 0 ? [makeAvailablePart(this.voids)] : []),
      ...firstEventsParts(this.events),
      ...transitionsParts(this.changes),
      ...(this.answers.length > 0 ? [answersPart(this.answers)] : []),
      ...(this.released.length > 0 ? [releaseKeysPart(this.released)] : []),
      ...this.removed,
    ];
    return [
      ...(this.parentEvents.length > 0 ? [sendEvents(tx, this.parentEvents)] : []),
      ...(parts.length > 0 ? [sendTogether(tx, parts)] : []),
    ];
  }
}
