import { count, gte, sql } from 'drizzle-orm';
import type { Config } from '../config';
import type { FieldCipher } from '../crypto';
import type { DbOrTx } from '../db/client';
import { achFiles, achTraceSequence } from '../db/schema/settlement';
import { newId } from '../ids';
import { type NachaBatch, nachaFile, readNachaTotals } from './nacha';

const MODIFIERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** The platform's ACH settings, and the cipher the file is stored under. */
export type AchFileDeps = { config: Config; cipher: FieldCipher };

/**
 * The one way an ACH file is written (docs/design.md): the NACHA text of `batches` with the platform's header
 * (its routing numbers and names, the day's next file id modifier), stored encrypted in `ach_files` with its
 * control totals and the records it carries, in the caller's transaction. A settlement file and a payout file
 * differ only in their batches. Each entry's trace number takes the next value of the database's trace sequence
 * (`nextTraceSequences`), drawn in the same transaction, so no two files share one. Returns the file's id and each
 * entry's trace number, in the order of the entries.
 */
export async function storeAchFile(
  tx: DbOrTx,
  deps: AchFileDeps,
  input: { batches: NachaBatch[]; now: Date; paymentIds?: string[]; payoutIds?: string[] },
): Promise<{ id: string; traceNumbers: string[]; bytes: number }> {
  const { config, cipher } = deps;
  const { now } = input;
  const startOfDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const [today] = await tx.select({ n: count() }).from(achFiles).where(gte(achFiles.createdAt, startOfDay));
  const traceSequences = await nextTraceSequences(
    tx,
    input.batches.reduce((n, batch) => n + batch.entries.length, 0),
  );
  const { content, traceNumbers } = nachaFile({
    immediateDestination: config.ACH_DESTINATION_ROUTING,
    immediateOrigin: config.ACH_ODFI_ROUTING,
    destinationName: config.ACH_DESTINATION_NAME,
    originName: config.ACH_ORIGIN_NAME,
    createdAt: now,
    fileIdModifier: MODIFIERS[(today?.n ?? 0) % MODIFIERS.length]!,
    originatingDfi: config.ACH_ODFI_ROUTING.slice(0, 8),
    batches: input.batches,
    traceSequences,
  });
  const totals = readNachaTotals(content);
  const id = newId('achFile');
  await tx.insert(achFiles).values({
    id,
    batchCount: totals.batchCount,
    entryCount: totals.entryCount,
    entryHash: String(totals.entryHash),
    totalDebit: totals.totalDebit,
    totalCredit: totals.totalCredit,
    paymentIds: input.paymentIds ?? [],
    payoutIds: input.payoutIds ?? [],
    // The file holds full account and routing numbers: encrypted at rest like every other copy of them.
    contentEnc: cipher.encrypt(content),
    createdAt: now,
  });
  return { id, traceNumbers, bytes: Buffer.byteLength(content) };
}

/**
 * The next `n` values of the trace sequence, in one statement. A sequence never hands a value out twice (until it
 * cycles, ten million entries on), even to transactions that roll back, so concurrent files never share one.
 */
export async function nextTraceSequences(tx: DbOrTx, n: number): Promise<number[]> {
  if (n === 0) return [];
  const rows = await tx.execute<{ n: string }>(
    sql`select nextval(${achTraceSequence.seqName!}::regclass)::text as n from generate_series(1, ${n}::int)`,
  );
  return rows.map((row) => Number(row.n));
}
