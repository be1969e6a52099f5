import { createRoute, z } from '@hono/zod-openapi';
import { listQuery } from '../http/pagination';
import {
  adminErrors,
  adminSecurity,
  centsString,
  idParam,
  isoTimestamp,
  jsonResponse,
  listDocument,
  resourceSchema,
} from './common';

/** The NACHA files settlement wrote, for ops (docs/design.md). The file content holds full account numbers. */
export const achFileResource = resourceSchema(
  'achFiles',
  z.object({
    createdAt: isoTimestamp,
    batchCount: z.number().int(),
    entryCount: z.number().int(),
    entryHash: z.string(),
    totalDebit: centsString,
    totalCredit: centsString,
    paymentIds: z.array(z.string()),
    /** The payouts the file credits (a payout run's file). */
    payoutIds: z.array(z.string()),
  }),
).openapi('AchFile');

export const listAchFilesRoute = createRoute({
  method: 'get',
  path: '/admin/ach-files',
  operationId: 'listAchFiles',
  tags: ['Admin'],
  summary: 'The NACHA files of ACH settlement passes and payout runs, newest first (ops)',
  security: adminSecurity,
  request: { query: listQuery({}) },
  responses: { 200: jsonResponse('A page of ACH files', listDocument(achFileResource)), ...adminErrors(400) },
});

export const getAchFileRoute = createRoute({
  method: 'get',
  path: '/admin/ach-files/{id}',
  operationId: 'getAchFile',
  tags: ['Admin'],
  summary: 'One NACHA file as text/plain: 94-character records, blocking factor 10 (ops)',
  security: adminSecurity,
  request: { params: idParam('ACH file id', 'ach_…') },
  responses: {
    200: { description: 'The NACHA file', content: { 'text/plain': { schema: z.string() } } },
    ...adminErrors(404),
  },
});

export const settlementRoutes = [listAchFilesRoute, getAchFileRoute];
