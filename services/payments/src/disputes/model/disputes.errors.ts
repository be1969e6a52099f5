import { ApiError } from '@pps/shared/http';
import type { Dispute } from './disputes.repository';

export const disputePointers = {
  evidence: '/data/attributes/evidence',
  submit: '/data/attributes/submit',
} as const;

/**
 * The errors of the dispute API (docs/api.md, Disputes). An unknown dispute, or another account's, is the shared
 * 404 `dispute_not_found` (`notFound`), so ids of other accounts are not confirmed.
 */
export const disputeErrors = {
  /** Evidence or an acceptance once the dispute no longer takes them: submitted, closed, or past its dueBy. */
  notOpen: (dispute: Dispute, pastDue: boolean, pointer?: string) =>
    new ApiError({
      status: 422,
      code: 'dispute_not_open',
      detail: pastDue
        ? `Dispute ${dispute.id} was due by ${dispute.dueBy.toISOString()}; it takes no more evidence`
        : `Dispute ${dispute.id} is ${dispute.status.replace('_', ' ')}; it takes no more evidence or acceptance`,
      ...(pointer ? { pointer } : {}),
    }),
};
