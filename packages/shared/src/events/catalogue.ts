import type { EventType } from './outbox';

/**
 * When each event type is written, one line each: the events tables of README and docs/api.md are generated from
 * this (`npm run docs:tables`), and typed by `EventType`, so a new type does not compile until it is described here.
 */
export const eventCatalogue: Record<EventType, string> = {
  'payment.created':
    'a card or ACH payment is approved or accepted (after its 3-D Secure challenge, if it had one); a refund, void, split refund, second split or capture record is made',
  'payment.authorized': 'a card payment with `capture: false` is authorized',
  'payment.captured': 'an authorization is captured (on the authorization; `previousStatus` `authorized`)',
  'payment.completed': 'a pending record settles',
  'payment.failed':
    'a payment is declined, AVS-refused or ACH-refused at creation, or its 3-D Secure challenge fails; an ACH debit is returned at settlement',
  'payment.voided':
    'a payment is voided (on the payment, not the void record), an authorization is cancelled, or one lapses uncaptured, or nobody answers a 3-D Secure challenge in 15 minutes',
  'payment.refunded': 'the payment, once refunds and split refunds reach its gross (wholly refunded)',
  'payment.partially_refunded': 'the payment, after a refund or split refund that leaves it partly refundable',
  'payment.requires_action':
    "a card payment sent with `authentication` waits for its cardholder's 3-D Secure challenge (`nextAction`)",
  'merchant.created': 'a merchant is onboarded',
  'merchant.updated': "a merchant's bank info, AVS mode, payout schedule or features changed",
  'merchant.status_changed': "the operator changed a merchant's status",
  'payout.created': 'a payout is made (automatic or `POST /payouts`)',
  'payout.paid': "a payout's deposit reached the bank",
  'payout.failed': 'the bank returned a payout',
  'dispute.created': "a card payment's cardholder disputes it (an inquiry, or a chargeback)",
  'dispute.funds_withdrawn':
    "a chargeback takes the disputed amount and the dispute fee from the merchant's available balance",
  'dispute.updated': 'evidence is saved or submitted (`previousStatus` `needs_response` once submitted)',
  'dispute.closed': 'a dispute is won or lost: decided by the bank, accepted, or left unanswered past `dueBy`',
  'dispute.funds_reinstated': "a won chargeback gives the disputed amount back to the merchant's available balance",
  'webhook.test': '`POST /webhooks/{id}/test` (sent to that endpoint only)',
};
