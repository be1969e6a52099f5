import { createRoute, z } from '@hono/zod-openapi';
import { authenticated, authenticatedErrors, resourceSchema, signedCentsString, singleDocument } from './common';

/** Reports (docs/api.md, Reports): figures the account reads as JSON or, with Accept: text/csv, as a spreadsheet. */

const figures = {
  count: z.number().int().openapi({ description: 'Records settled' }),
  gross: signedCentsString,
  fees: signedCentsString,
  refunds: signedCentsString,
  net: signedCentsString,
  disputed: signedCentsString.openapi({
    description: "What chargebacks took back from the merchant's available balance on these days (fees apart)",
  }),
  disputeFees: signedCentsString.openapi({ description: 'The dispute fees of those chargebacks' }),
  reinstated: signedCentsString.openapi({ description: 'What won chargebacks gave back on these days' }),
};

export const settlementReportSchema = resourceSchema(
  'settlementReports',
  z.object({
    date: z.string().nullable().openapi({
      format: 'date',
      example: '2026-11-24',
      description: 'The settlement day, when the report covers one day (startDate = endDate); null for a range',
    }),
    startDate: z.string().openapi({ format: 'date', example: '2026-11-24', description: 'First settlement day' }),
    endDate: z.string().openapi({ format: 'date', example: '2026-11-24', description: 'Last settlement day' }),
    currency: z.string().openapi({ example: 'USD' }),
    merchants: z.array(z.object({ merchantId: z.string(), ...figures })).openapi({
      description:
        'Each merchant of the account that settled anything, or had a chargeback or a reinstatement, in the range, ' +
        'by merchant id: its sums',
    }),
    totals: z.object(figures),
  }),
).openapi('SettlementReport');

/** A settlement day as a query parameter: a calendar date, YYYY-MM-DD. */
const dayParam = (name: string, description: string) =>
  z.iso
    .date({
      error: (issue) => (issue.input === undefined ? undefined : `${name} must be a calendar date as YYYY-MM-DD`),
    })
    .optional()
    .openapi({ param: { name, in: 'query' }, description, example: '2026-11-24' });

/**
 * One settlement day (`date`), or a range of them (`startDate` and `endDate`, both inclusive), never both. A
 * settlement day is the Pacific date the money settled (by the account's clock), not the day it was due.
 */
export const settlementReportQuerySchema = z
  .object({
    date: dayParam('date', 'One settlement day (Pacific time); or give startDate and endDate instead'),
    startDate: dayParam('startDate', 'First settlement day of a range (inclusive, Pacific time), with endDate'),
    endDate: dayParam('endDate', 'Last settlement day of a range (inclusive, Pacific time), with startDate'),
  })
  .superRefine((query, ctx) => {
    const range = query.startDate !== undefined || query.endDate !== undefined;
    const issue = (path: string, code: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [path], params: { code }, message, input: query });
    if (query.date !== undefined && range) {
      issue('date', 'invalid_field', 'date is one day: give it, or startDate and endDate for a range, not both');
    } else if (query.date === undefined && !range) {
      issue('date', 'missing_field', 'date is required (or startDate and endDate for a range)');
    } else if (range && query.startDate === undefined) {
      issue('startDate', 'missing_field', 'startDate is required with endDate');
    } else if (range && query.endDate === undefined) {
      issue('endDate', 'missing_field', 'endDate is required with startDate');
    } else if (range && query.startDate! > query.endDate!) {
      issue('startDate', 'invalid_date_range', 'startDate must be on or before endDate');
    }
  });

export const getSettlementReportRoute = createRoute({
  method: 'get',
  path: '/reports/settlement',
  operationId: 'getSettlementReport',
  tags: ['Reports'],
  summary:
    'Settlement per merchant (count, gross, fees, refunds, net, and the chargebacks: disputed, disputeFees, reinstated) and totals over one settlement day or a range of them; JSON or CSV (Accept)',
  security: authenticated,
  request: { query: settlementReportQuerySchema },
  responses: {
    200: {
      description: 'The report: JSON, or with Accept: text/csv a header row, one row per merchant and a totals row',
      content: {
        'application/json': { schema: singleDocument(settlementReportSchema) },
        'text/csv': { schema: z.string().openapi({ example: 'merchantId,count,gross,fees,refunds,net' }) },
      },
    },
    ...authenticatedErrors(400),
  },
});

export const reportsRoutes = [getSettlementReportRoute];
