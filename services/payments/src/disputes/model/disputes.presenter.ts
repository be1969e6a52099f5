import { absoluteUrl } from '@pps/shared/http';
import { formatCents } from '@pps/shared/money';
import type { Dispute } from './disputes.repository';

const iso = (value: Date | null) => value?.toISOString() ?? null;

/** The dispute's `data` as GET /disputes/{id} returns it, at `now` (the account's clock: is it past due?). */
export function disputeResource(dispute: Dispute, now: Date) {
  return {
    type: 'disputes' as const,
    id: dispute.id,
    attributes: {
      paymentId: dispute.paymentId,
      merchantId: dispute.merchantId,
      amount: formatCents(dispute.amount),
      currency: dispute.currency,
      reason: dispute.reason,
      networkReasonCode: dispute.networkReasonCode,
      phase: dispute.phase,
      status: dispute.status,
      dueBy: dispute.dueBy.toISOString(),
      evidence: dispute.evidence,
      evidenceDetails: {
        submissionCount: dispute.submissionCount,
        submittedAt: iso(dispute.submittedAt),
        pastDue: dispute.status === 'needs_response' && now.getTime() > dispute.dueBy.getTime(),
      },
      createdAt: dispute.createdAt.toISOString(),
      updatedAt: dispute.updatedAt.toISOString(),
      closedAt: iso(dispute.closedAt),
    },
  };
}

export type DisputeResource = ReturnType<typeof disputeResource>;

export const disputeUrl = (baseUrl: string, id: string) => absoluteUrl(baseUrl, `/disputes/${id}`);

export const disputeDocument = (baseUrl: string, resource: DisputeResource) => ({
  links: { self: disputeUrl(baseUrl, resource.id) },
  data: resource,
});
