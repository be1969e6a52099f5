import type { DbOrTx } from '@pps/shared/db';
import { keysetOf, notFound, type PageQuery } from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import {
  findRequestRow,
  listRequestRows,
  type RequestFilters,
  requestPlace,
  requestTotal,
} from '../model/request-log.repository';

export type ListRequestsInput = PageQuery & RequestFilters;

/** What the request log's use cases read: the database, and the account whose requests they are (the caller's). */
export type RequestLogContext = { db: DbOrTx; account: { id: string } };

/** `GET /requests`: the account's requests, newest first, by the filters given; never another account's. */
export async function listRequests({ ctx, input }: { ctx: RequestLogContext; input: ListRequestsInput }) {
  const accountId = ctx.account.id;
  const { limit, offset, startingAfter, endingBefore, ...filters } = input;
  const keyset = await keysetOf({ startingAfter, endingBefore }, (id) => requestPlace(ctx.db, accountId, id));
  const [page, total] = await Promise.all([
    listRequestRows(ctx.db, { accountId, filters, limit, offset, keyset }),
    requestTotal(ctx.db, accountId, filters),
  ]);
  return { ...page, total };
}

/** `GET /requests/{id}`: one of the account's requests with its bodies; another account's is not found. */
export async function getRequest({ ctx, input }: { ctx: RequestLogContext; input: { id: string } }) {
  const row = isId('request', input.id) ? await findRequestRow(ctx.db, ctx.account.id, input.id) : undefined;
  if (!row) throw notFound('request', input.id);
  return row;
}
