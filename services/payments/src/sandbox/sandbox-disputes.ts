import { settleAtFor } from '@pps/shared/clock';
import { type Db, schema } from '@pps/shared/db';
import type { DisputePhase, DisputeReason } from '@pps/shared/states';
import { sql } from 'drizzle-orm';
import type { DisputeDecision, NetworkDispute } from '../processor/processor';

/** The test cards the sandbox's cardholders dispute, and how (docs/api.md, The sandbox). */
export const SANDBOX_DISPUTE_CARDS: Readonly<
  Record<string, { phase: DisputePhase; reason: DisputeReason; networkReasonCode: string }>
> = {
  '4000000000000259': { phase: 'chargeback', reason: 'fraudulent', networkReasonCode: '10.4' },
  '4000000000001976': { phase: 'inquiry', reason: 'general', networkReasonCode: '13.1' },
};

/** Business days between a payment's settlement day and its dispute, and a dispute's opening and its `dueBy`. */
export const SANDBOX_DISPUTE_AFTER_SETTLEMENT_DAYS = 1;
export const SANDBOX_DISPUTE_RESPONSE_DAYS = 7;
/** Business days the bank takes to answer evidence. */
export const SANDBOX_DISPUTE_DECISION_DAYS = 2;

/** The sandbox network's id of the dispute of a payment (one per payment). */
export const sandboxNetworkId = (paymentId: string) => `sbx_dp_${paymentId}`;

const { sandboxDisputes } = schema;

/**
 * The card network's side of the sandbox's disputes: what a real acquirer keeps of its own. A dispute card's
 * approval is noted in `sandbox_disputes`; the network opens the dispute once the payment has settled, one
 * business day after its settlement day by the account's clock, and answers evidence from its words.
 */
export class SandboxDisputes {
  constructor(private readonly db: Db | undefined) {}

  /**
   * Notes an approved payment of a dispute card (nothing for any other card, and nothing without a database). A
   * payment its cardholder authenticated (3-D Secure) is never disputed as fraudulent: the liability shifted.
   */
  async noteApproval(paymentId: string, number: string, now: Date, options = { authenticated: false }): Promise<void> {
    const card = SANDBOX_DISPUTE_CARDS[number];
    if (!card || !this.db) return;
    if (options.authenticated && card.reason === 'fraudulent') return;
    await this.db
      .insert(sandboxDisputes)
      .values({ paymentId, phase: card.phase, reason: card.reason, createdAt: now })
      .onConflictDoNothing();
  }

  /**
   * The disputes opened by each account's clock at `now`, of settled payments not wholly refunded, that the
   * platform has not stored yet. The amount is what is left of the payment after its refunds and split refunds.
   */
  async report(query: { accountId?: string; now: Date }): Promise<NetworkDispute[]> {
    if (!this.db) return [];
    // Written out: a join of the sandbox's notes with the payments and their accounts' clocks, and the refunds
    // summed per payment, which the builder would write as three queries.
    const rows = await this.db.execute<{
      payment_id: string;
      phase: DisputePhase;
      reason: DisputeReason;
      currency: string;
      left: string;
      settled_at: string;
      clock_offset_seconds: number;
    }>(sql`
      select sd.payment_id, sd.phase, sd.reason, p.currency, a.clock_offset_seconds,
        to_json(p.settled_at) #>> '{}' as settled_at,
        (p.gross - coalesce((
          select sum(c.amount) from payments c
          where c.parent_payment_id = p.id and c.payment_type in ('refund', 'refundSplit') and c.status <> 'failed'
        ), 0))::text as left
      from sandbox_disputes sd
      join payments p on p.id = sd.payment_id
      join accounts a on a.id = p.account_id
      where p.settled_at is not null and p.status in ('completed', 'partial_refund')
        and (${query.accountId ?? null}::text is null or p.account_id = ${query.accountId ?? null})
        and not exists (select 1 from disputes d where d.network_id = 'sbx_dp_' || sd.payment_id)`);
    return rows.flatMap((row) => {
      const accountNow = query.now.getTime() + row.clock_offset_seconds * 1000;
      const openedAt = settleAtFor(new Date(row.settled_at), SANDBOX_DISPUTE_AFTER_SETTLEMENT_DAYS);
      const amount = Number(row.left);
      const card = Object.values(SANDBOX_DISPUTE_CARDS).find(
        (candidate) => candidate.phase === row.phase && candidate.reason === row.reason,
      );
      if (openedAt.getTime() > accountNow || amount <= 0 || !card) return [];
      return [
        {
          networkId: sandboxNetworkId(row.payment_id),
          paymentId: row.payment_id,
          amount,
          currency: row.currency,
          reason: row.reason,
          networkReasonCode: card.networkReasonCode,
          phase: row.phase,
          openedAt,
          dueBy: settleAtFor(openedAt, SANDBOX_DISPUTE_RESPONSE_DAYS),
        },
      ];
    });
  }

  /** The bank's answer: lost for `losing_evidence`, else won (`winning_evidence`, or anything else), in 2 days. */
  decide(input: { evidence: schema.DisputeEvidence; submittedAt: Date }): DisputeDecision {
    return {
      outcome: input.evidence.uncategorizedText?.trim() === 'losing_evidence' ? 'lost' : 'won',
      decidedAt: settleAtFor(input.submittedAt, SANDBOX_DISPUTE_DECISION_DAYS),
    };
  }
}
