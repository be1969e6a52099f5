import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { schema } from '@pps/shared/db';
import { eventCatalogue, eventTypes } from '@pps/shared/events';
import { balanceTransactionCatalogue } from '@pps/shared/ledger';
import { API_VERSIONS, VERSION_CHANGES } from '@pps/shared/versions';
import { cliCommands } from './cli-commands';

/**
 * `npm run docs:tables`: writes the documents' tables that the code defines, each between `<!-- <name>:start -->`
 * and `<!-- <name>:end -->` in its document: the event types (README and docs/api.md, from the event catalogue,
 * `packages/shared/src/events/catalogue.ts`), the balance transaction types (docs/api.md, from
 * `packages/shared/src/ledger/balance-transaction-catalogue.ts`), the ops CLI's commands (docs/api.md, from
 * `scripts/cli-commands.ts`), the API versions' changelog (docs/api.md, from the change modules of
 * `packages/shared/src/versions/changes.ts`) and the index of docs/decisions.md (from its numbered headings).
 * `--check` writes nothing and exits 1 when a document differs (test/platform/docs-tables.unit.test.ts fails then
 * too).
 */
const repositoryFile = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

export type GeneratedTable = { document: string; name: string; render: () => string };

/** A markdown table: a header and a row per entry, `|` escaped inside cells (code spans too). */
function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n') + '\n';
}

/** One row per event type, in the catalogue's order. */
export const eventsTable = () =>
  table(
    ['event', 'written when'],
    eventTypes.map((type) => [`\`${type}\``, eventCatalogue[type]]),
  );

/** One row per balance transaction type, in the schema's order. */
export const balanceTransactionTypesTable = () =>
  table(
    ['type', 'records', '`sourceId`'],
    schema.balanceTransactionTypes.map((type) => {
      const { records, source } = balanceTransactionCatalogue[type];
      return [`\`${type}\``, records, source];
    }),
  );

export const cliCommandsTable = () =>
  table(
    ['command', 'does'],
    Object.entries(cliCommands).map(([name, { args, does }]) => [
      `\`npm run cli -- ${name}${args ? ` ${args}` : ''}\``,
      does,
    ]),
  );

/** A heading's anchor as GitHub makes it: lower case, punctuation and code marks dropped, spaces as hyphens. */
export const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The numbered records of docs/decisions.md (`## 12. Title`), in the document's order. */
export const decisionRecords = (text = readDocument('docs/decisions.md')) =>
  [...text.matchAll(/^## (\d+)\. (.+)$/gm)].map(([heading, number, title]) => ({
    number: Number(number),
    title: title as string,
    anchor: anchorOf(heading.slice(3)),
  }));

/** The index of docs/decisions.md: a row per record, linked to it. */
export const decisionsIndex = () =>
  table(
    ['#', 'record'],
    decisionRecords().map(({ number, title, anchor }) => [String(number), `[${title}](#${anchor})`]),
  );

/**
 * One row per change, oldest version first (the first contract a row of its own), each with its module's name and
 * changelog line.
 */
export const versionsTable = () =>
  table(
    ['version', 'change', 'what changed (from the version before)'],
    API_VERSIONS.flatMap((version) => {
      const changes = VERSION_CHANGES.filter((change) => change.version === version);
      if (changes.length === 0) return [[`\`${version}\``, '', 'the first contract']];
      return changes.map((change) => [`\`${version}\``, `\`${change.name}\``, change.changelog]);
    }),
  );

export const generatedTables: GeneratedTable[] = [
  { document: 'README.md', name: 'events', render: eventsTable },
  { document: 'docs/api.md', name: 'events', render: eventsTable },
  { document: 'docs/api.md', name: 'balance-transaction-types', render: balanceTransactionTypesTable },
  { document: 'docs/api.md', name: 'cli-commands', render: cliCommandsTable },
  { document: 'docs/decisions.md', name: 'decisions-index', render: decisionsIndex },
  { document: 'docs/api.md', name: 'versions', render: versionsTable },
];

const markers = (name: string) => ({ start: `<!-- ${name}:start -->\n`, end: `<!-- ${name}:end -->` });

/** What is between `name`'s markers in `text` now. */
export function generatedBlock(text: string, name: string, document = 'the document'): string {
  const { start, end } = markers(name);
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`${document} has no ${start.trim()} … ${end} markers`);
  return text.slice(from + start.length, to);
}

export const readDocument = (document: string) => readFileSync(repositoryFile(document), 'utf8');

function main() {
  const check = process.argv.includes('--check');
  let differ = 0;
  for (const { document, name, render } of generatedTables) {
    const text = readDocument(document);
    const current = generatedBlock(text, name, document);
    const generated = render();
    if (current === generated) continue;
    differ += 1;
    if (check) {
      console.error(`${document}: the ${name} table differs from the code: run npm run docs:tables`);
      continue;
    }
    const { start, end } = markers(name);
    writeFileSync(
      repositoryFile(document),
      text.replace(start + current + end, () => start + generated + end),
    );
    console.log(`${document}: the ${name} table written`);
  }
  if (check && differ > 0) process.exit(1);
  if (differ === 0) console.log("every generated table is the code's");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
