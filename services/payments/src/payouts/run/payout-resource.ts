import type { z } from '@hono/zod-openapi';
import type { payoutResourceSchema } from '@pps/shared/contract';
import type { schema } from '@pps/shared/db';

import { formatCents } from '@pps/shared/money';

type Payout = schema.Payout;

const iso = (instant: Date | null) => instant?.toISOString() ?? null;

/**
 * A payout as the API shows it (GET /payouts/{id}) and as its events carry it: cents as strings, the bank account
 * it goes to by its last four digits only.
 */
export function payoutResource(payout: Payout): z.output<typeof payoutResourceSchema> {
  return {
    type: 'payouts',
    id: payout.id,
    attributes: {
      merchantId: payout.merchantId,
      amount: formatCents(payout.amount),
      currency: payout.currency,
      status: payout.status,
      method: payout.method,
      arrivalDate: payout.arrivalDate,
      bank: { last4: payout.bankLast4, routingLast4: payout.routingLast4 },
      traceNumber: payout.traceNumber,
      failureCode: payout.failureCode,
      failureMessage: payout.failureMessage,
      createdAt: payout.createdAt.toISOString(),
      updatedAt: payout.updatedAt.toISOString(),
      paidAt: iso(payout.paidAt),
      failedAt: iso(payout.failedAt),
    },
  };
}
