import { FieldCipher } from '@pps/shared/crypto';
import { ApiError } from '@pps/shared/http';
import type { Hono } from 'hono';
import { describeAchFile, pageAchFiles, readAchFile } from '../../admin/ach-files.usecases';
import { type GatewayDeps, gatewayContext } from '../../deps';
import { dollars, when } from '../components/format';
import { Layout } from '../components/layout';
import { NotFound } from '../components/not-found';
import { Fields, Table } from '../components/table';
import type { ConsoleContext, ConsoleEnv } from '../console-env';

type AchFile = Awaited<ReturnType<typeof describeAchFile>>;

/** "2 payments, 1 payout": what a file carries. */
const carries = (file: { paymentIds: string[]; payoutIds: string[] }) =>
  [
    file.paymentIds.length > 0 && `${file.paymentIds.length} payment${file.paymentIds.length === 1 ? '' : 's'}`,
    file.payoutIds.length > 0 && `${file.payoutIds.length} payout${file.payoutIds.length === 1 ? '' : 's'}`,
  ]
    .filter(Boolean)
    .join(', ') || '—';

/** "settled 2, returned 1": the entries' records by their status now. */
function statusSummary(entries: AchFile['entries']): string {
  const byStatus = new Map<string, number>();
  for (const entry of entries) {
    const status = entry.record?.status ?? 'no record found';
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }
  return [...byStatus].map(([status, n]) => `${status} ${n}`).join(', ') || '—';
}

/** Only the operator reaches these pages; an account's viewer goes to its home, nothing said. */
const isOperator = (c: ConsoleContext) => c.get('viewer').kind === 'operator';

/** A 404 from a use case becomes the console's not-found page; anything else is the console's error. */
async function unlessNotFound<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/**
 * The operator's ACH files: GET /console/ach-files (the NACHA files settlement and payout runs wrote, newest first, by
 * cursor pages), GET /console/ach-files/:id (its counts, totals and entries by trace number, with each record's
 * status) and GET /console/ach-files/:id/download (the file itself). The pages never show a bank account number;
 * the download is the file as the bank gets it, which holds them by nature, so it is served to the operator only.
 * They call the gateway's admin use cases (`/admin/ach-files` is the API's way to the same), not the API as an
 * account: the files are no account's.
 */
export function registerAchFilesPages(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  const ctx = gatewayContext(deps);
  const cipher = new FieldCipher(deps.config.DATA_ENCRYPTION_KEYS);

  app.get('/console/ach-files', async (c) => {
    if (!isOperator(c)) return c.redirect('/console', 303);
    const after = c.req.query('after') || undefined;
    const { files, next } = await pageAchFiles({ ctx, input: { after, limit: 50 } });
    return c.html(
      <Layout title="ACH files" viewer={c.get('viewer')} current="/console/ach-files">
        <p>The NACHA files settlement (ACH debits and refund credits) and payout runs (credits) wrote for the bank.</p>
        <Table
          caption="ACH files, newest first"
          headers={['File', 'Created', 'Batches', 'Entries', 'Total debit', 'Total credit', 'Carries']}
          empty="No ACH file yet: settlement writes one when ACH payments settle, the payout run when it pays out."
          rows={files.map((file) => [
            <a href={`/console/ach-files/${file.id}`}>{file.id}</a>,
            when(file.createdAt.toISOString()),
            String(file.batchCount),
            String(file.entryCount),
            dollars(file.totalDebit),
            dollars(file.totalCredit),
            carries(file),
          ])}
        />
        <nav class="pages" aria-label="Pages">
          {after && <a href="/console/ach-files">First page</a>}
          {next && (
            <a href={`/console/ach-files?after=${encodeURIComponent(next)}`} rel="next">
              Next page
            </a>
          )}
        </nav>
      </Layout>,
    );
  });

  app.get('/console/ach-files/:id', async (c) => {
    if (!isOperator(c)) return c.redirect('/console', 303);
    const described = await unlessNotFound(() => describeAchFile({ ctx, cipher, input: { id: c.req.param('id') } }));
    if (!described) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    const { file, entries } = described;
    return c.html(
      <Layout title={`ACH file ${file.id}`} viewer={c.get('viewer')} current="/console/ach-files">
        <Fields
          fields={[
            ['Created', when(file.createdAt.toISOString())],
            ['Batches', String(file.batchCount)],
            ['Entries', String(file.entryCount)],
            ['Entry hash', file.entryHash],
            ['Total debit', dollars(file.totalDebit)],
            ['Total credit', dollars(file.totalCredit)],
            ['Carries', carries(file)],
            ['Records by status now', statusSummary(entries)],
          ]}
        />
        <p>
          <a href={`/console/ach-files/${file.id}/download`} download={`${file.id}.ach`}>
            Download the NACHA file
          </a>{' '}
          (plain text as the bank gets it: it holds the receivers' bank account numbers).
        </p>
        <Table
          caption={`Entries of ${file.id}, in file order`}
          headers={['Trace number', 'Direction', 'Transaction code', 'Amount', 'Record', 'Status now']}
          empty="This file has no entry."
          rows={entries.map((entry) => [
            entry.traceNumber,
            entry.direction,
            entry.transactionCode,
            dollars(entry.amount),
            entry.record ? `${entry.record.kind} ${entry.record.id}` : '—',
            entry.record?.status ?? '—',
          ])}
        />
        <p>
          <a href="/console/ach-files">All ACH files</a>
        </p>
      </Layout>,
    );
  });

  app.get('/console/ach-files/:id/download', async (c) => {
    if (!isOperator(c)) return c.redirect('/console', 303);
    const id = c.req.param('id');
    const content = await unlessNotFound(() => readAchFile({ ctx, cipher, input: { id } }));
    if (content === undefined) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    return c.body(content, 200, {
      'content-type': 'text/plain; charset=us-ascii',
      'content-disposition': `attachment; filename="${id}.ach"`,
    });
  });
}
