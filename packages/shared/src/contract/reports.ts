import { createRoute, z } from '@hono/zod-openapi';
import { authenticated, authenticatedErrors, resourceSchema, signedCentsString, singleDocument } from './common';

/** Reports (docs/api.md, Reports): figures the account reads as JSON or, with Accept: text/csv, as a spreadsheet. */

const figures = {
  count: z.number().int().openapi({ description: 'Records settled' }),
  gross: signedCentsString,
  fees: signedCentsString,
  refunds: signedCentsString,
  net: signedCentsString,
};

export const settlementReportSchema = resourceSchema(
  'settlementReports',
  z.object({
    date: z.string().openapi({ format: 'date', example: '2026-11-24' }),
    currency: z.string().openapi({ example: 'USD' }),
    merchants: z
      .array(z.object({ merchantId: z.string(), ...figures }))
      .openapi({ description: 'Each merchant of the account that settled anything that day, by merchant id' }),
    totals: z.object(figures),
  }),
).openapi('SettlementReport');

export const settlementReportQuerySchema = z.object({
  date: z.iso
    .date({
      error: (issue) => (issue.input === undefined ? undefined : 'date must be a calendar date as YYYY-MM-DD'),
    })
    .openapi({
      param: { name: 'date', in: 'query' },
      description: 'The settlement day (Pacific time)',
      example: '2026-11-24',
    }),
});

export const getSettlementReportRoute = createRoute({
  method: 'get',
  path: '/reports/settlement',
  operationId: 'getSettlementReport',
  tags: ['Reports'],
  summary: "One day's settlement per merchant (count, gross, fees, refunds, net) and totals; JSON or CSV (Accept)",
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
