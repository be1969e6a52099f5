import { accountClock } from '@pps/shared/clock';
import type { Config } from '@pps/shared/config';
import type { DbOrTx } from '@pps/shared/db';
import { type EventType, writeEvents } from '@pps/shared/events';
import { newId } from '@pps/shared/ids';
import { disputeReinstatementLines, disputeWithdrawalLines, post } from '@pps/shared/ledger';
import { assertDisputeTransition, type DisputeStatus } from '@pps/shared/states';
import { lockPayments } from '../../payments/model/payments.repository';
import type { NetworkDispute } from '../../processor/processor';
import { disputeResource } from './disputes.presenter';
import { type Dispute, insertDispute, markPayment, type NewDispute, updateDispute } from './disputes.repository';

/**
 * Every change of a dispute, each in the caller's transaction with its money and its events (docs/design.md,
 * Disputes): a network dispute stored (a chargeback's withdrawal posted), and a dispute moved through its machine
 * (a won chargeback's amount reinstated). `now` is the account's clock (the dispute's and the ledger's times),
 * `realNow` the wall clock (events' timestamps).
 */
export type DisputeMove = { config: Pick<Config, 'DISPUTE_FEE_CENTS'>; now: Date; realNow: Date; requestId?: string };

function disputeEvents(dispute: Dispute, move: DisputeMove, types: EventType[], previousStatus: DisputeStatus | null) {
  const resource = disputeResource(dispute, move.now);
  return types.map((type) => ({
    accountId: dispute.accountId,
    type,
    resource,
    previousStatus,
    requestId: move.requestId ?? null,
    now: move.realNow,
  }));
}

/**
 * Stores a network dispute once, under its payment's row lock (so no refund runs meanwhile): the dispute
 * `needs_response`, the payment marked, and for a chargeback the amount and the dispute fee taken from the
 * merchant's available balance at once. Undefined when the network dispute was stored already (by another run).
 */
export async function openDispute(
  tx: DbOrTx,
  wall: Omit<DisputeMove, 'now'>,
  reported: NetworkDispute,
): Promise<Dispute | undefined> {
  const [payment] = await lockPayments(tx, [reported.paymentId]);
  if (!payment) throw new Error(`network dispute ${reported.networkId} names no payment ${reported.paymentId}`);
  const now = (await accountClock(tx, payment.accountId, wall.realNow)) ?? wall.realNow;
  const move: DisputeMove = { ...wall, now };
  if (payment.paymentType !== 'card' || payment.parentPaymentId !== null) {
    throw new Error(`network dispute ${reported.networkId} names ${payment.id}, which is no card payment`);
  }
  const withdrawn = reported.phase === 'chargeback' ? reported.amount : 0;
  const values: NewDispute = {
    id: newId('dispute'),
    accountId: payment.accountId,
    paymentId: payment.id,
    merchantId: payment.merchantId,
    networkId: reported.networkId,
    amount: reported.amount,
    currency: reported.currency,
    reason: reported.reason,
    networkReasonCode: reported.networkReasonCode,
    phase: reported.phase,
    status: 'needs_response',
    dueBy: reported.dueBy,
    evidence: {},
    submissionCount: 0,
    withdrawn,
    createdAt: move.now,
    updatedAt: move.now,
  };
  const dispute = await insertDispute(tx, values);
  if (!dispute) return undefined;
  if (withdrawn > 0) {
    const fee = move.config.DISPUTE_FEE_CENTS;
    await post(tx, {
      accountId: dispute.accountId,
      paymentId: dispute.id,
      merchantId: dispute.merchantId,
      kind: 'dispute',
      now: move.now,
      lines: disputeWithdrawalLines({ merchantId: dispute.merchantId, amount: withdrawn, fee }),
    });
  }
  await markPayment(tx, { paymentId: payment.id, disputeId: dispute.id, withdrawn, now: move.now });
  const types: EventType[] = withdrawn > 0 ? ['dispute.created', 'dispute.funds_withdrawn'] : ['dispute.created'];
  await writeEvents(tx, disputeEvents(dispute, move, types, null));
  return dispute;
}

/**
 * Moves a dispute (its row locked by the caller) to `changes.status`, or to the same status with new evidence.
 * A chargeback won gives its amount back to the merchant's available balance (the fee is kept). Undefined when the
 * dispute is no longer in the status it was read in.
 */
export async function moveDispute(
  tx: DbOrTx,
  move: DisputeMove,
  dispute: Dispute,
  changes: Partial<NewDispute> & { status: DisputeStatus },
): Promise<Dispute | undefined> {
  if (changes.status !== dispute.status) assertDisputeTransition(dispute.status, changes.status);
  const closing = changes.status === 'won' || changes.status === 'lost';
  const reinstated = changes.status === 'won' ? dispute.withdrawn : 0;
  const moved = await updateDispute(tx, dispute.id, dispute.status, {
    ...changes,
    ...(closing ? { closedAt: move.now } : {}),
    ...(reinstated > 0 ? { withdrawn: 0 } : {}),
    updatedAt: move.now,
  });
  if (!moved) return undefined;
  if (reinstated > 0) {
    await lockPayments(tx, [dispute.paymentId]);
    await post(tx, {
      accountId: dispute.accountId,
      paymentId: dispute.id,
      merchantId: dispute.merchantId,
      kind: 'dispute_reversal',
      now: move.now,
      lines: disputeReinstatementLines({ merchantId: dispute.merchantId, amount: reinstated }),
    });
    await markPayment(tx, { paymentId: dispute.paymentId, disputeId: dispute.id, withdrawn: 0, now: move.now });
  }
  const types: EventType[] = closing ? ['dispute.closed'] : ['dispute.updated'];
  if (reinstated > 0) types.push('dispute.funds_reinstated');
  const previous = changes.status === dispute.status ? null : dispute.status;
  await writeEvents(tx, disputeEvents(moved, move, types, previous));
  return moved;
}
