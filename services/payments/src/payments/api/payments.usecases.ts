import type { CreatePaymentBody } from '@pps/shared/contract';
import {
  invalidDateRange,
  keysetOf,
  ownedBy,
  type PageQuery,
  type ServiceContext,
  wallClockNow,
} from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import { finalPaymentStatuses, type PaymentStatus, paymentStatuses, paymentTransitions } from '@pps/shared/states';
import type { ProcessorAnswer } from '../../processor/processor';
import { capturePayment } from '../child-operations/capture.usecases';
import type { ChildOutcome, LockedParent } from '../child-operations/child-operation';
import { type Operations, runOperation } from '../child-operations/group-commit';
import { refundPayment } from '../child-operations/refund.usecases';
import { refundSplit } from '../child-operations/refund-split.usecases';
import { secondSplit } from '../child-operations/second-split.usecases';
import { type IdempotentResponse, type IdempotentRun, idempotencyKeyOf, keyClaimOf } from '../idempotency/idempotency';
import { ledgerOfRecords } from '../model/ledger-entries.repository';
import { listPaymentRecords, paymentPlace } from '../model/payment-list.repository';
import { paymentErrors } from '../model/payments.errors';
import { paymentResource, paymentStatusDocument, paymentSummary } from '../model/payments.presenter';
import { findChildren, findMerchant, findPayment, type Payment } from '../model/payments.repository';
import { beginAchDebit } from '../new/ach-debit.usecases';
import { beginCharge, type CardPaymentInput, type ChargeDeps } from '../new/charge-card.usecases';
import { runInPhases } from '../new/run-in-phases';

/** New payments' dependencies, and the group commit of operations on existing ones. */
export type PaymentDeps = ChargeDeps & { operations: Operations };

/** What every POST /payments run shares, whatever its operation. */
type Common = Pick<IdempotentRun<never>, 'db' | 'accountId' | 'data' | 'key' | 'ttlDays' | 'baseUrl' | 'now'>;

/**
 * The run of each `paymentType`: new card and ACH payments in phases (`runInPhases`: the processor is called with
 * no transaction open), operations on an existing payment (a capture among them) in one idempotent transaction
 * (`runIdempotent`, `tx`).
 */
function runFor(
  ctx: ServiceContext,
  attributes: CreatePaymentBody['data']['attributes'],
  deps: PaymentDeps,
  common: Common,
): Promise<IdempotentResponse> {
  // An operation on an existing payment: group-committed with concurrent ones, under its parent's row lock.
  const onParent = <I extends { parentPaymentId: string }>(
    operation: (args: { ctx: ServiceContext; input: I; locked: LockedParent }) => Promise<ChildOutcome>,
    input: I,
  ) =>
    runOperation(deps.operations, {
      ctx,
      key: common.key && { claim: keyClaimOf(common.key, common), given: common.key },
      parentPaymentId: input.parentPaymentId,
      run: (inBatch, locked) => operation({ ctx: inBatch, input, locked }),
    });
  switch (attributes.paymentType) {
    case 'tokenv3':
    case 'tokenv3Split':
    case 'card': {
      const input = attributes satisfies CardPaymentInput;
      return runInPhases<ProcessorAnswer>({
        ...common,
        admission: deps.admission,
        // Its claim is on its way while it is checked: a claim batch with room waits for it (`expecting`).
        begin: () => deps.claims.expecting(() => beginCharge({ ctx, input, deps })),
      });
    }
    case 'ACH':
      return runInPhases<ProcessorAnswer>({
        ...common,
        admission: deps.admission,
        begin: () => deps.claims.expecting(() => beginAchDebit({ ctx, input: attributes, deps })),
      });
    case 'refund':
      return onParent(refundPayment, attributes);
    case 'refundSplit':
      return onParent(refundSplit, attributes);
    case 'secondSplit':
      return onParent(secondSplit, attributes);
    case 'capture':
      return onParent(capturePayment, attributes);
  }
}

/**
 * POST /payments: the operation chosen by `paymentType`, idempotent per account when a key is given, as
 * `data.requestId` or as the `Idempotency-Key` header (`idempotencyKey`; both: they must agree). `raw` is the
 * request's `data` as sent, fingerprinted to tell a replay from a reused key.
 */
export async function createPayment({
  ctx,
  input,
  idempotencyKey,
  raw,
  deps,
}: {
  ctx: ServiceContext;
  input: CreatePaymentBody['data'];
  idempotencyKey: string | undefined;
  raw: unknown;
  deps: PaymentDeps;
}): Promise<IdempotentResponse> {
  // Before the transaction: two different keys are a 400 that touches nothing.
  const key = idempotencyKeyOf({ requestId: input.requestId, header: idempotencyKey });
  return runFor(ctx, input.attributes, deps, {
    db: ctx.db,
    accountId: ctx.accountId,
    data: raw as { requestId?: unknown },
    key,
    ttlDays: ctx.config.IDEMPOTENCY_TTL_DAYS,
    baseUrl: ctx.config.PUBLIC_BASE_URL,
    now: wallClockNow(ctx),
  });
}

/** A payment of the caller's account: 404 unknown (or not an id at all), 403 another account's. */
async function ownedPayment(ctx: ServiceContext, id: string): Promise<Payment> {
  const payment = isId('payment', id) ? await findPayment(ctx.db, id) : undefined;
  return ownedBy(payment, ctx, 'payment', id);
}

export async function getPayment({ ctx, input }: { ctx: ServiceContext; input: { id: string } }) {
  // Both reads at once (one round trip's wait); the children are shown only once the payment proves the caller's.
  const [payment, children] = await Promise.all([
    ownedPayment(ctx, input.id),
    isId('payment', input.id) ? findChildren(ctx.db, input.id) : [],
  ]);
  return paymentResource(payment, children, ctx.clock.now());
}

/**
 * GET /payments/{id}/ledger-entries: the postings of the payment and of what it owns, in posting order. A refund,
 * void or split record posts under its own id, a dispute under the dispute's; a capture under the authorization's,
 * and a settlement under the payment's (carrying its children's pending money): so the payment's entries are those
 * of its id, its children's and its disputes', each read by the ledger's key.
 */
export async function listPaymentLedgerEntries({ ctx, input }: { ctx: ServiceContext; input: { id: string } }) {
  const [payment, children] = await Promise.all([
    ownedPayment(ctx, input.id),
    isId('payment', input.id) ? findChildren(ctx.db, input.id) : [],
  ]);
  const recordIds = [
    payment.id,
    ...children.map((child) => child.id),
    ...(payment.disputes ?? []).map((dispute) => dispute.id),
  ];
  return { paymentId: payment.id, ...(await ledgerOfRecords(ctx.db, recordIds)) };
}

export async function getPaymentStatus({ ctx, input }: { ctx: ServiceContext; input: { id: string } }) {
  return paymentStatusDocument(await ownedPayment(ctx, input.id));
}

export type ListPaymentsInput = PageQuery & {
  id?: string;
  merchantId?: string;
  status?: PaymentStatus;
  paymentType?: Payment['paymentType'];
  invoice?: string;
  startDate?: Date;
  endDate?: Date;
  last4?: string;
  customerEmail?: string;
  amountGte?: number;
  amountLte?: number;
  createdGte?: Date;
  createdLte?: Date;
};

/**
 * The merchant a list names, and by which parameter: the spec's `id`, or `merchantId` as every other list says;
 * both may be given when they name the same merchant. Neither: the list is the account's.
 */
function listedMerchant(input: ListPaymentsInput): { merchantId: string; parameter: 'id' | 'merchantId' } | undefined {
  const id = input.id?.trim() || undefined;
  const merchantId = input.merchantId?.trim() || undefined;
  if (id && merchantId && id !== merchantId) throw paymentErrors.twoMerchants(id, merchantId);
  if (merchantId) return { merchantId, parameter: 'merchantId' };
  if (id) return { merchantId: id, parameter: 'id' };
  return undefined;
}

/** Each range must run forward: one ending before it starts is a mistake, not an empty list. */
function assertRanges(input: ListPaymentsInput) {
  if (input.startDate && input.endDate && input.startDate > input.endDate) throw invalidDateRange();
  if (input.createdGte && input.createdLte && input.createdGte > input.createdLte) {
    throw invalidDateRange({ parameter: 'createdLte' }, 'createdLte must not be before createdGte');
  }
  if (input.amountGte !== undefined && input.amountLte !== undefined && input.amountGte > input.amountLte) {
    throw paymentErrors.amountRange();
  }
}

/**
 * GET /payments: the account's records, or one merchant's (as primary or split receiver), children included,
 * newest first, filtered.
 */
export async function listPayments({ ctx, input }: { ctx: ServiceContext; input: ListPaymentsInput }) {
  const listed = listedMerchant(input);
  if (listed) {
    const { merchantId, parameter } = listed;
    const merchant = isId('merchant', merchantId) ? await findMerchant(ctx.db, merchantId) : undefined;
    if (!merchant) throw paymentErrors.invalidMerchantId(`No merchant ${merchantId}`, parameter);
    ownedBy(merchant, ctx, 'merchant', merchantId, { parameter });
  }
  assertRanges(input);
  const scope = { accountId: ctx.accountId, merchantId: listed?.merchantId };
  const keyset = await keysetOf(input, (id) => paymentPlace(ctx.db, scope, id));
  const { rows, total, totalCapped, travel } = await listPaymentRecords(ctx.db, { ...input, ...scope, keyset });
  return {
    data: rows.map(paymentSummary),
    page: { total, totalCapped, limit: input.limit, offset: input.offset, travel },
  };
}

/** GET /payments/states: the state machine as data. */
export const paymentStates = () => ({
  type: 'paymentStates' as const,
  id: 'payments',
  attributes: {
    statuses: [...paymentStatuses],
    finalStatuses: [...finalPaymentStatuses],
    transitions: paymentTransitions.map((transition) => ({ ...transition })),
  },
});
