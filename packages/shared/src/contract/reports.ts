import { createRoute, z } from '@hono/zod-openapi';
import {
  authenticated,
  authenticatedErrors,
  centsString,
  inStorableYear,
  jsonResponse,
  resourceSchema,
  signedCentsString,
  singleDocument,
} from './common';

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
    .refine((day) => inStorableYear(new Date(day)), `${name} must be a calendar date from year 1 on`)
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

/** The longest range of one daily report: about a quarter, what a chart of days can show. */
export const DAILY_REPORT_MAX_DAYS = 92;

const dailyFigures = {
  attempts: z.number().int().openapi({ description: 'Card and ACH payments created (refunds and captures apart)' }),
  approved: z.number().int().openapi({ description: 'Those not declined' }),
  declined: z.number().int().openapi({ description: 'Those declined (created failed)' }),
  approvedAmount: centsString.openapi({ description: 'The amounts of the approved ones' }),
};

export const dailyReportSchema = resourceSchema(
  'dailyReports',
  z.object({
    startDate: z.string().openapi({ format: 'date', example: '2026-10-31', description: 'First day' }),
    endDate: z.string().openapi({ format: 'date', example: '2026-11-29', description: 'Last day' }),
    currency: z.literal('USD'),
    days: z.array(z.object({ date: z.string().openapi({ format: 'date' }), ...dailyFigures })).openapi({
      description: 'Every day of the range, oldest first, zero on days without a payment',
    }),
    totals: z.object(dailyFigures),
  }),
).openapi('DailyReport');

/**
 * The days of a daily report: `startDate` and `endDate` together (inclusive, at most 92 days), or neither for the 30
 * days ending today by the account's clock.
 */
export const dailyReportQuerySchema = z
  .object({
    startDate: dayParam('startDate', 'First day (inclusive, Pacific time), with endDate; default 29 days before today'),
    endDate: dayParam(
      'endDate',
      "Last day (inclusive, Pacific time), with startDate; default today by the account's clock",
    ),
  })
  .superRefine((query, ctx) => {
    const issue = (path: string, code: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [path], params: { code }, message, input: query });
    if (query.startDate === undefined && query.endDate === undefined) return;
    if (query.startDate === undefined) return issue('startDate', 'missing_field', 'startDate is required with endDate');
    if (query.endDate === undefined) return issue('endDate', 'missing_field', 'endDate is required with startDate');
    if (query.startDate > query.endDate) {
      return issue('startDate', 'invalid_date_range', 'startDate must be on or before endDate');
    }
    const days = (Date.parse(query.endDate) - Date.parse(query.startDate)) / 86_400_000 + 1;
    if (days > DAILY_REPORT_MAX_DAYS) {
      issue('endDate', 'invalid_date_range', `a daily report covers at most ${DAILY_REPORT_MAX_DAYS} days`);
    }
  });

export const getDailyReportRoute = createRoute({
  method: 'get',
  path: '/reports/daily',
  operationId: 'getDailyReport',
  tags: ['Reports'],
  summary:
    "Payments created per day (attempts, approved, declined, approved amount) over up to 92 days by the account's clock; the last 30 by default",
  security: authenticated,
  request: { query: dailyReportQuerySchema },
  responses: {
    200: jsonResponse('The days, oldest first, and their totals', singleDocument(dailyReportSchema)),
    ...authenticatedErrors(400),
  },
});

export const reportsRoutes = [getSettlementReportRoute, getDailyReportRoute];
