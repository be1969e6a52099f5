import type { FieldCipher } from '@pps/shared/crypto';
import { keysetOf, notFound, type PageQuery } from '@pps/shared/http';
import type { GatewayContext } from '../deps';
import { achFilePlace, findAchFileContent, listAchFileRows } from './ach-files.repository';

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
