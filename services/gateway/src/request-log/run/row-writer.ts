import type { Db, schema } from '@pps/shared/db';
import { type CapturedRequest, requestLogRow } from '../model/entry';
import { insertRequestLogRows } from '../model/request-log.repository';

/** Rows per statement: a backlog is written in several. */
const ROWS_PER_STATEMENT = 50;

/** What the row writer tells its owner: rows written, dropped, the database failing and answering again. */
export type RowWriterEvents = {
  written: (count: number) => void;
  dropped: (count: number) => void;
  failing: (error: unknown, waiting: number) => void;
  recovered: (waiting: number) => void;
};

/**
 * The rows of the request log on their way to PostgreSQL, in the writer's thread: requests made into rows (bodies
 * redacted and cut), kept while they wait (at most `capacity`, the oldest dropped past it), and written in one
 * statement per batch, one batch at a time. A batch the database refuses for a row it cannot store (a body with
 * `\u0000`, say: SQLSTATE class 22) is split until that row is found, which is written without its bodies, or
 * dropped; any other failure (the database away) keeps every row for the next `write`.
 */
export function createRowWriter(deps: { db: Db; capacity: number; on: RowWriterEvents }) {
  let unwritten: schema.NewRequestLogRow[] = [];
  let failing = false;

  async function add(captured: CapturedRequest[]) {
    const rows = await Promise.all(
      captured.map((entry) =>
        requestLogRow(entry).catch(() => {
          deps.on.dropped(1);
          return undefined;
        }),
      ),
    );
    for (const row of rows) if (row) unwritten.push(row);
    if (unwritten.length > deps.capacity) {
      deps.on.dropped(unwritten.length - deps.capacity);
      unwritten = unwritten.slice(unwritten.length - deps.capacity);
    }
  }

  /** Writes the rows waiting, until they are all written or the database fails; the rest wait for the next call. */
  async function write() {
    while (unwritten.length > 0) {
      const batch = unwritten.slice(0, ROWS_PER_STATEMENT);
      try {
        await insertIsolating(batch);
      } catch (error) {
        if (!failing) deps.on.failing(error, unwritten.length);
        failing = true;
        return;
      }
      if (failing) deps.on.recovered(unwritten.length);
      failing = false;
      unwritten = unwritten.slice(batch.length);
    }
  }

  /** Inserts `rows`; a data error splits them until the row at fault is found and written without its bodies. */
  async function insertIsolating(rows: schema.NewRequestLogRow[]): Promise<void> {
    try {
      await insertRequestLogRows(deps.db, rows);
      deps.on.written(rows.length);
    } catch (error) {
      if (!isDataError(error)) throw error;
      if (rows.length > 1) {
        const half = Math.ceil(rows.length / 2);
        await insertIsolating(rows.slice(0, half));
        await insertIsolating(rows.slice(half));
        return;
      }
      const [row] = rows as [schema.NewRequestLogRow];
      if (row.requestBody === null && row.responseBody === null) {
        deps.on.dropped(1);
        return;
      }
      await insertIsolating([{ ...row, requestBody: null, responseBody: null }]);
    }
  }

  return { add, write, waiting: () => unwritten.length };
}

export type RowWriter = ReturnType<typeof createRowWriter>;

/** A value PostgreSQL refused (class 22, data exception): the same rows would be refused again. */
const isDataError = (error: unknown) => {
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } }).code ??
    (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'string' && code.startsWith('22');
};
