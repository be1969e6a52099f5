import { parentPort, workerData } from 'node:worker_threads';
import { createDatabase } from '@pps/shared/db';
import type { CapturedRequest } from '../model/entry';
import { createRowWriter } from './row-writer';

/**
 * The request log's writer thread (`startRequestLog` starts it): it makes the rows of the requests the gateway's
 * thread hands it (bodies parsed, redacted, cut) and writes them on a connection of its own, so none of that takes
 * the thread that answers requests. Bundled as its own entry point (`request-log-writer.js`, scripts/build.ts).
 */

/** What the gateway's thread sends. */
export type ToWriter =
  | { kind: 'requests'; requests: CapturedRequest[] }
  | { kind: 'flush'; id: number }
  | { kind: 'close'; id: number };

/** What the writer thread answers. */
export type FromWriter =
  | { kind: 'written'; count: number }
  | { kind: 'dropped'; count: number }
  | { kind: 'waiting'; count: number }
  | { kind: 'failing'; error: string; waiting: number }
  | { kind: 'recovered'; waiting: number }
  | { kind: 'done'; id: number };

export type WriterOptions = { databaseUrl: string; connectTimeoutMs: number; capacity: number };

const port = parentPort;
if (!port) throw new Error('the request log writer runs as a worker thread');
const post = (message: FromWriter) => port.postMessage(message);
const options = workerData as WriterOptions;
/**
 * The writer's session: commits that do not wait for their WAL to reach the disk (a crash of PostgreSQL may lose the
 * last fraction of a second of the log, never a payment's commit, and the log's commits add no flush for the
 * payments' to queue behind), and a statement the database holds up is given up after 30 s and sent again.
 */
const SESSION = 'synchronous_commit=off&statement_timeout=30000&application_name=pps-request-log';
const databaseUrl = `${options.databaseUrl}${options.databaseUrl.includes('?') ? '&' : '?'}${SESSION}`;
const database = createDatabase(databaseUrl, { max: 1, connectTimeoutMs: options.connectTimeoutMs });
const rows = createRowWriter({
  db: database.db,
  capacity: options.capacity,
  on: {
    written: (count) => post({ kind: 'written', count }),
    dropped: (count) => post({ kind: 'dropped', count }),
    failing: (error, waiting) => post({ kind: 'failing', error: (error as Error).message ?? String(error), waiting }),
    recovered: (waiting) => post({ kind: 'recovered', waiting }),
  },
});

// Requests are made into rows as they come (that bounds what waits), and written one batch at a time, as soon as the
// previous write is over: a write the database holds up never queues the requests behind it.
let adding = Promise.resolve();
let writing: Promise<void> | undefined;
let again = false;

function write(): Promise<void> {
  if (writing) {
    again = true;
    return writing;
  }
  writing = rows
    .write()
    .catch((error: unknown) => post({ kind: 'failing', error: String(error), waiting: rows.waiting() }))
    .finally(() => {
      post({ kind: 'waiting', count: rows.waiting() });
      writing = undefined;
      if (again) {
        again = false;
        void write();
      }
    });
  return writing;
}

/** Every row made so far written (or refused), including those a write under way did not take. */
async function settle() {
  await adding;
  while (writing) await writing;
  await write();
}

port.on('message', (message: ToWriter) => {
  if (message.kind === 'requests') {
    adding = adding
      .then(() => rows.add(message.requests))
      .then(() => void write())
      .catch(() => {});
  } else if (message.kind === 'flush') {
    void settle().then(() => post({ kind: 'done', id: message.id }));
  } else {
    void settle()
      .then(async () => {
        if (rows.waiting() > 0) post({ kind: 'dropped', count: rows.waiting() });
        await database.close();
      })
      .then(() => post({ kind: 'done', id: message.id }));
  }
});
