import { randomUUID } from 'node:crypto';
import {
  createDataCipher,
  deleteExpiredIdempotencyKeys,
  type Payment,
  recoverPayments,
  SandboxProcessor,
} from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import type { Config } from '@pps/shared/config';
import { type Db, pipelinedTransaction, schema, sendTogether, tableCodec } from '@pps/shared/db';
import { newId } from '@pps/shared/ids';
import type { Logger } from '@pps/shared/logger';
import { PROCESSING } from '@pps/shared/states';
import { eq, sql } from 'drizzle-orm';

/**
 * A merchant's card history for `npm run bench:history`, grown in-process through the platform's own write path
 * rather than over HTTP (a million payments through the API would take hours). Each chunk of payments goes
 * through the three phases of a new payment (docs/design.md, The payment write path):
 *
 * 1. its records claimed `processing` (`payment_claims`), with the idempotency keys that name them, in one
 *    transaction. Phase 1's group commit (`claimsCommitter`, `claimsInsertPart`) is internal to @pps/payments,
 *    whose entry points a bench may not reach past (`npm run check:imports`), so the rows go in by the tables' own
 *    statements (`tableCodec(…).insertManyText`: the claims' is the very one `claimsInsertPart` sends; the keys' is
 *    the claim's row without its `on conflict`, none being possible here). The records are the template's (a
 *    payment the bench made through the API) with a new id, time and key;
 * 2. each authorized by the sandbox processor (`SandboxProcessor.authorizeCard`), which remembers its answer;
 * 3. every claim finished by the payment recovery job (`recoverPayments`), which asks the processor again by id
 *    and records the outcome with `recordOutcomes`, the very function phase 3 calls: the record inserted into
 *    `payments` with its outcome, `payment.created` in the outbox, the capture posting and its balance
 *    transaction.
 *
 * Then a settlement pass (`runSettlementPass`, the settlement job's function) settles what is due, moving the
 * captures from pending to available, and the idempotency cleanup (`deleteExpiredIdempotencyKeys`) runs as the
 * platform's hourly job would.
 *
 * The history runs back in time from four days ago (so a business day has passed and the payments are due), one
 * payment a minute: growing it adds older payments, and the newest days look the same at every size. A payment
 * older than the keys' lifetime (IDEMPOTENCY_TTL_DAYS) is made without a key: the cleanup would have removed its
 * key long ago, and writing it only to delete it would double the keys' share of the seeding.
 */

/** What the seeding is given: the database, the platform's config (its settlement days, key lifetime) and a log. */
export type SeedDeps = { db: Db; config: Config; log: Logger };

/** A payment the platform made through the API, copied for each seeded one, and its key's request fingerprint. */
export type HistoryTemplate = { payment: Payment; requestHash: string; cardNumber: string };

/** Payments per phase-1 transaction and per recovery call (the sandbox remembers 100,000 answers). */
const CHUNK = 5000;
/** Records a settlement batch claims. */
const SETTLEMENT_BATCH = 5000;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** The newest seeded payment's age: a business day and more, so every payment is due at settlement. */
const HISTORY_ENDS_DAYS_AGO = 4;

const claimCodec = tableCodec(schema.paymentClaims);
const keyCodec = tableCodec(schema.idempotencyKeys);

/** The template: the payment `paymentId` and the fingerprint its key stored (the same body gives the same one). */
export async function historyTemplate(db: Db, paymentId: string, cardNumber: string): Promise<HistoryTemplate> {
  const [payment] = await db.select().from(schema.payments).where(eq(schema.payments.id, paymentId));
  const [key] = await db
    .select({ requestHash: schema.idempotencyKeys.requestHash })
    .from(schema.idempotencyKeys)
    .where(eq(schema.idempotencyKeys.paymentId, paymentId));
  if (!payment || !key) throw new Error(`template payment ${paymentId} or its idempotency key not found`);
  return { payment, requestHash: key.requestHash, cardNumber };
}

/** Grows the template merchant's history to a number of payments, each call from where the last one left it. */
export function historySeeder(deps: SeedDeps, template: HistoryTemplate) {
  const processor = new SandboxProcessor();
  const cipher = createDataCipher(deps.config);
  const end = Date.now() - HISTORY_ENDS_DAYS_AGO * DAY_MS;
  const createdAtOf = (index: number) => new Date(end - index * MINUTE_MS);
  let seeded = 0;
  let analyzedAt = 0;

  async function chunk(from: number, to: number) {
    const keyCutoff = Date.now() - deps.config.IDEMPOTENCY_TTL_DAYS * DAY_MS;
    // Real time, past recovery's threshold: the job takes these records at once. It dates each outcome that long
    // after its record's creation (its clock is the record's plus the real time since), as phase 3 would have.
    const since = new Date(Date.now() - (deps.config.PAYMENT_RECOVERY_AFTER_SECONDS + 1) * 1000);
    const records = Array.from({ length: to - from }, (_, offset) =>
      processingRecord(createdAtOf(from + offset), since),
    );
    const keys = records
      .filter((record) => record.createdAt.getTime() > keyCutoff)
      .map((record) => ({
        accountId: record.accountId,
        requestId: randomUUID(),
        requestHash: template.requestHash,
        // Real time, as the claim has it: the account's clock runs with no offset here.
        createdAt: record.createdAt,
        paymentId: record.id,
        responseStatus: null,
        responseBody: null,
      }));
    await pipelinedTransaction(deps.db, async (tx) => ({
      result: undefined,
      pending: [
        sendTogether(tx, [
          ...(keys.length > 0 ? [{ text: keyCodec.insertManyText, params: keyCodec.manyParams(keys) }] : []),
          { text: claimCodec.insertManyText, params: claimCodec.manyParams(records) },
        ]),
      ],
    }));
    for (const record of records) {
      await processor.authorizeCard({
        paymentId: record.id,
        card: { number: template.cardNumber, expiry: record.card!.expiry, holder: record.card!.holder },
        amount: record.gross,
        billingAddress: record.billingAddress ?? null,
        now: record.createdAt,
      });
    }
    const { recorded, abandoned } = await recoverPayments({ ...deps, processor }, { now: new Date() });
    if (recorded !== records.length || abandoned > 0) {
      throw new Error(`${records.length} payments seeded, ${recorded} recorded and ${abandoned} abandoned`);
    }
  }

  /** A new payment's phase-1 record as `beginCharge` makes it, copied from the template's request. */
  function processingRecord(createdAt: Date, since: Date): schema.NewPayment {
    const { payment } = template;
    return {
      id: newId('payment', createdAt.getTime()),
      accountId: payment.accountId,
      merchantId: payment.merchantId,
      paymentType: payment.paymentType,
      requestType: payment.requestType,
      status: PROCESSING,
      amount: payment.amount,
      currency: payment.currency,
      invoice: payment.invoice,
      gross: payment.gross,
      feeFixed: payment.feeFixed,
      rateBasisPoints: payment.rateBasisPoints,
      grossMinusNet: payment.grossMinusNet,
      net: payment.net,
      splitMerchantId: null,
      splitAmount: null,
      code: 'pending',
      message: 'Awaiting the processor',
      tokenId: payment.tokenId,
      card: payment.card,
      billingAddress: payment.billingAddress,
      avsRequested: payment.avsRequested,
      captureRequested: payment.captureRequested,
      miscData: payment.miscData,
      requestId: newId('request', createdAt.getTime()),
      processingSince: since,
      createdAt,
      updatedAt: createdAt,
    };
  }

  return {
    /** Payments seeded so far. */
    get seeded() {
      return seeded;
    },
    /** Seeds payments up to `size`, settles what is due and removes expired keys; returns the seconds each took. */
    async growTo(size: number, progress: (seeded: number) => void = () => {}) {
      const started = performance.now();
      for (; seeded < size; ) {
        const to = Math.min(size, seeded + CHUNK);
        await chunk(seeded, to);
        seeded = to;
        progress(seeded);
        // What autovacuum's analyze does when a tenth of a table has changed, which this machine's cluster does not
        // do by itself: without it the seeding's prepared statements kept plans made on the small tables, and each
        // chunk scanned everything seeded before it (docs/decisions.md, A merchant's history never slows the API).
        if (seeded >= analyzedAt * 1.1 + CHUNK) {
          await deps.db.execute(sql`analyze`);
          analyzedAt = seeded;
        }
      }
      const recorded = performance.now();
      await runSettlementPass({ ...deps, processor, cipher }, { now: new Date(), batchSize: SETTLEMENT_BATCH });
      const settled = performance.now();
      await deleteExpiredIdempotencyKeys(deps.db, new Date(), deps.config.IDEMPOTENCY_TTL_DAYS);
      return { recordSeconds: (recorded - started) / 1000, settleSeconds: (settled - recorded) / 1000 };
    },
  };
}
