import type { DisputeEvidenceBody } from '@pps/shared/contract';
import { withTransaction } from '@pps/shared/db';
import {
  invalidDateRange,
  keysetOf,
  notFound,
  ownedBy,
  type PageQuery,
  type ServiceContext,
  wallClockNow,
} from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import { findMerchant, findPayment } from '../../payments/model/payments.repository';
import type { Processor } from '../../processor/processor';
import { type DisputeMove, moveDispute } from '../model/dispute-transitions';
import { disputeErrors, disputePointers } from '../model/disputes.errors';
import { disputeResource } from '../model/disputes.presenter';
import {
  type Dispute,
  type DisputeListFilter,
  disputePlace,
  findDispute,
  listDisputeRows,
  lockDispute,
} from '../model/disputes.repository';

/** A dispute of the caller's account; an unknown one, or another account's, is the same 404. */
function owned(ctx: ServiceContext, id: string, dispute: Dispute | undefined): Dispute {
  if (!dispute || dispute.accountId !== ctx.accountId) throw notFound('dispute', id);
  return dispute;
}

const moveOf = (ctx: ServiceContext): DisputeMove => ({
  config: ctx.config,
  now: ctx.clock.now(),
  realNow: wallClockNow(ctx),
  requestId: ctx.requestId,
});

export async function getDispute({ ctx, input }: { ctx: ServiceContext; input: { id: string } }) {
  const dispute = isId('dispute', input.id) ? await findDispute(ctx.db, input.id) : undefined;
  return disputeResource(owned(ctx, input.id, dispute), ctx.clock.now());
}

export type ListDisputesInput = Omit<DisputeListFilter, 'accountId' | 'keyset'> & PageQuery;

/**
 * GET /disputes: the account's disputes, or one merchant's or one payment's (an unknown one is a 400 naming the
 * parameter, another account's a 403, as every list answers), newest first.
 */
export async function listDisputes({ ctx, input }: { ctx: ServiceContext; input: ListDisputesInput }) {
  const merchantId = input.merchantId?.trim() || undefined;
  const paymentId = input.paymentId?.trim() || undefined;
  if (merchantId !== undefined) {
    const merchant = isId('merchant', merchantId) ? await findMerchant(ctx.db, merchantId) : undefined;
    ownedBy(merchant, ctx, 'merchant', merchantId, { parameter: 'merchantId', notFoundStatus: 400 });
  }
  if (paymentId !== undefined) {
    const payment = isId('payment', paymentId) ? await findPayment(ctx.db, paymentId) : undefined;
    ownedBy(payment, ctx, 'payment', paymentId, { parameter: 'paymentId', notFoundStatus: 400 });
  }
  if (input.startDate && input.endDate && input.startDate > input.endDate) throw invalidDateRange();
  const scope = { accountId: ctx.accountId, merchantId, paymentId };
  const keyset = await keysetOf(input, (id) => disputePlace(ctx.db, scope, id));
  const { rows, total, travel } = await listDisputeRows(ctx.db, { ...input, ...scope, keyset });
  const now = ctx.clock.now();
  return {
    data: rows.map((row) => disputeResource(row, now)),
    page: { total, limit: input.limit, offset: input.offset, travel },
  };
}

type EvidenceInput = { id: string } & DisputeEvidenceBody['data']['attributes'];

/**
 * POST /disputes/{id}/evidence: the fields given replace the saved ones; with `submit: true` the evidence goes to
 * the bank (`Processor.submitDisputeEvidence`), whose answer is applied on its day by the dispute run. Only while
 * the dispute needs a response and its `dueBy` has not passed by the account's clock.
 *
 * A submission is three steps, as a new payment is, so no transaction is open while the bank is asked (a slow bank
 * would hold the dispute's lock and a connection for as long; docs/design.md, Deadlines): the dispute read and
 * checked, the evidence sent, then the evidence and the bank's answer recorded in one move if the dispute is still
 * open. A submission that lost the race to another is refused as a late one is; the bank, asked twice, keeps one
 * submission per dispute. A process that stops between the last two leaves the dispute open: submitted again, the
 * bank is asked again.
 */
export async function submitDisputeEvidence({
  ctx,
  input,
  processor,
}: {
  ctx: ServiceContext;
  input: EvidenceInput;
  processor: Processor;
}) {
  if (!isId('dispute', input.id)) throw notFound('dispute', input.id);
  const move = moveOf(ctx);
  const pointer = input.evidence !== undefined ? disputePointers.evidence : disputePointers.submit;
  if (!input.submit) {
    return withTransaction(ctx.db, async (tx) => {
      const dispute = openDispute(ctx, input.id, await lockDispute(tx, input.id), move, pointer);
      if (input.evidence === undefined) return disputeResource(dispute, move.now);
      const evidence = { ...dispute.evidence, ...input.evidence };
      const saved = await moveDispute(tx, move, dispute, { status: dispute.status, evidence });
      return disputeResource(saved ?? dispute, move.now);
    });
  }
  // Submitted: what the bank is sent is checked and read first, and recorded, with its answer, after.
  const read = openDispute(ctx, input.id, await findDispute(ctx.db, input.id), move, pointer);
  const evidence = { ...read.evidence, ...input.evidence };
  const decision = await processor.submitDisputeEvidence({
    networkId: read.networkId,
    evidence,
    submittedAt: move.now,
  });
  return withTransaction(ctx.db, async (tx) => {
    const dispute = openDispute(ctx, input.id, await lockDispute(tx, input.id), move, pointer);
    const submitted = await moveDispute(tx, move, dispute, {
      status: 'under_review',
      evidence,
      submissionCount: dispute.submissionCount + 1,
      submittedAt: move.now,
      outcome: decision.outcome,
      decidedAt: decision.decidedAt,
    });
    return disputeResource(submitted ?? dispute, move.now);
  });
}

/** The caller's dispute while it takes a response (needs one, not past due by the account's clock); else refused. */
function openDispute(
  ctx: ServiceContext,
  id: string,
  found: Dispute | undefined,
  move: DisputeMove,
  pointer: string,
): Dispute {
  const dispute = owned(ctx, id, found);
  const pastDue = move.now.getTime() > dispute.dueBy.getTime();
  if (dispute.status !== 'needs_response' || pastDue) {
    throw disputeErrors.notOpen(dispute, dispute.status === 'needs_response' && pastDue, pointer);
  }
  return dispute;
}

/** POST /disputes/{id}/accept: the dispute is lost at once; what a chargeback took back stays with the cardholder. */
export async function acceptDispute({ ctx, input }: { ctx: ServiceContext; input: { id: string } }) {
  if (!isId('dispute', input.id)) throw notFound('dispute', input.id);
  return withTransaction(ctx.db, async (tx) => {
    const dispute = owned(ctx, input.id, await lockDispute(tx, input.id));
    const move = moveOf(ctx);
    if (dispute.status !== 'needs_response') throw disputeErrors.notOpen(dispute, false);
    const accepted = await moveDispute(tx, move, dispute, { status: 'lost' });
    return disputeResource(accepted ?? dispute, move.now);
  });
}
