import type { FieldCipher } from '@pps/shared/crypto';
import { notFound } from '@pps/shared/http';
import type { GatewayContext } from '../deps';
import { findAchFileContent, listAchFileRows } from './ach-files.repository';

/** GET /admin/ach-files: the files settlement wrote, newest first (the settlement service owns the table). */
export async function listAchFiles({
  ctx,
  input,
}: {
  ctx: Pick<GatewayContext, 'db'>;
  input: { limit: number; offset: number };
}) {
  return listAchFileRows(ctx.db, input);
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
