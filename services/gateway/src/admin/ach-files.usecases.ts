import { readNachaEntries } from '@pps/shared/ach';
import type { FieldCipher } from '@pps/shared/crypto';
import { keysetOf, notFound, type PageQuery } from '@pps/shared/http';
import type { GatewayContext } from '../deps';
import {
  achFilePlace,
  achFileRecords,
  achFileRowsAfter,
  findAchFileContent,
  findAchFileSummary,
  listAchFileRows,
} from './ach-files.repository';

/** GET /admin/ach-files: the files settlement wrote, newest first (the settlement service owns the table). */
export async function listAchFiles({ ctx, input }: { ctx: Pick<GatewayContext, 'db'>; input: PageQuery }) {
  const keyset = await keysetOf(input, (id) => achFilePlace(ctx.db, id));
  return listAchFileRows(ctx.db, { limit: input.limit, offset: input.offset, keyset });
}

/** GET /admin/ach-files/{id}: the NACHA file as written, decrypted (it holds full account numbers). */
export async function readAchFile({
  ctx,
  cipher,
  input,
}: {
  ctx: Pick<GatewayContext, 'db'>;
  cipher: FieldCipher;
  input: { id: string };
}): Promise<string> {
  const content = await findAchFileContent(ctx.db, input.id);
  if (content === undefined) throw notFound('achFile', input.id);
  return cipher.decrypt(content);
}

/**
 * The console's list of the files: `limit` of them, newest first, from after the file `after` (an id that is no file
 * reads from the newest), and the id to read the next page from when more follow. Nothing counts the files.
 */
export async function pageAchFiles({
  ctx,
  input,
}: {
  ctx: Pick<GatewayContext, 'db'>;
  input: { after?: string; limit: number };
}) {
  const after = input.after ? await achFilePlace(ctx.db, input.after) : undefined;
  const { rows, hasMore } = await achFileRowsAfter(ctx.db, { limit: input.limit, after });
  return { files: rows, next: hasMore ? rows.at(-1)?.id : undefined };
}

/**
 * One file as the console shows it: its counts and totals, and each entry's direction, amount and trace number with
 * the payment or payout it carries and that record's status now (found by the trace number both keep). Read from the
 * decrypted file, but nothing of a receiver's bank account leaves this function (`readNachaEntries`).
 */
export async function describeAchFile({
  ctx,
  cipher,
  input,
}: {
  ctx: Pick<GatewayContext, 'db'>;
  cipher: FieldCipher;
  input: { id: string };
}) {
  const file = await findAchFileSummary(ctx.db, input.id);
  if (!file) throw notFound('achFile', input.id);
  const [content, records] = await Promise.all([readAchFile({ ctx, cipher, input }), achFileRecords(ctx.db, file)]);
  const byTrace = new Map(records.map((record) => [record.traceNumber, record]));
  const entries = readNachaEntries(content).map((entry) => ({ ...entry, record: byTrace.get(entry.traceNumber) }));
  return { file, entries };
}
