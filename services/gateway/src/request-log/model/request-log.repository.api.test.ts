import { createDatabase, type Database } from '@pps/shared/db';
import { createDatabaseFromTemplate } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { insertRequestLogRows } from './request-log.repository';

/** The request log's batch insert against a real PostgreSQL: every value stored as it was given. */
let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  const created = await createDatabaseFromTemplate(inject('templateDatabase'), inject('runId'));
  drop = created.drop;
  database = createDatabase(created.url, { max: 1 });
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

const row = {
  accountId: 'acct_request_log_insert',
  method: 'POST',
  status: 201,
  durationMs: 12,
  requestBodyTruncated: false,
  responseBodyTruncated: true,
  createdAt: new Date('2026-11-29T10:00:00.123Z'),
};

describe('insertRequestLogRows', () => {
  it('stores each value as given: null apart from empty, bodies byte for byte, the separator only as U+FFFD', async () => {
    await insertRequestLogRows(database.db, [
      {
        ...row,
        id: 'req_insert_1',
        path: '/payments?limit=5',
        clientRequestId: null,
        idempotencyKey: null,
        requestBody: '{"note":"a \\"quoted\\" \\\\ back\\u0041slash, a tab\\t"}',
        responseBody: null,
      },
      {
        ...row,
        id: 'req_insert_2',
        path: '/payments/x\u001fy',
        clientRequestId: '',
        idempotencyKey: 'key\u001f2',
        requestBody: '',
        responseBody: 'Zoë pays € with 😀',
        requestBodyTruncated: true,
        responseBodyTruncated: false,
      },
    ]);
    // Sent again (a commit that went unheard): nothing doubles.
    await insertRequestLogRows(database.db, [{ ...row, id: 'req_insert_1', path: '/other' }]);

    const stored = await database.sql`
      select id, account_id, method, path, status, client_request_id, idempotency_key, duration_ms, request_body,
        request_body_truncated, response_body, response_body_truncated, created_at = ${row.createdAt.toISOString()}::timestamptz as at_time
      from request_log order by id`;
    expect(stored).toEqual([
      {
        id: 'req_insert_1',
        account_id: row.accountId,
        method: 'POST',
        path: '/payments?limit=5',
        status: 201,
        client_request_id: null,
        idempotency_key: null,
        duration_ms: 12,
        request_body: '{"note":"a \\"quoted\\" \\\\ back\\u0041slash, a tab\\t"}',
        request_body_truncated: false,
        response_body: null,
        response_body_truncated: true,
        at_time: true,
      },
      {
        id: 'req_insert_2',
        account_id: row.accountId,
        method: 'POST',
        path: '/payments/x\ufffdy',
        status: 201,
        client_request_id: '',
        idempotency_key: 'key\ufffd2',
        duration_ms: 12,
        request_body: '',
        request_body_truncated: true,
        response_body: 'Zoë pays € with 😀',
        response_body_truncated: false,
        at_time: true,
      },
    ]);
  });
});
