import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { eventCatalogue, eventTypes } from '@pps/shared/events';

/**
 * `npm run docs:events`: writes README's events table from the event catalogue
 * (`packages/shared/src/events/catalogue.ts`), between `<!-- events:start -->` and `<!-- events:end -->`;
 * `--check` writes nothing and exits 1 when README's table differs (test/platform/readme-events.unit.test.ts fails
 * then too).
 */
export const README_FILE = fileURLToPath(new URL('../README.md', import.meta.url));
const START = '<!-- events:start -->\n';
const END = '<!-- events:end -->';

/** The table, one row per event type in the catalogue's order. */
export function eventsTable(): string {
  const rows = eventTypes.map((type) => `| \`${type}\` | ${eventCatalogue[type]} |`);
  return ['| event | written when |', '|---|---|', ...rows].join('\n') + '\n';
}

/** What is between the markers in `readme` now. */
export function readmeEventsTable(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END, start);
  if (start < 0 || end < 0) throw new Error('README.md has no <!-- events:start --> … <!-- events:end --> markers');
  return readme.slice(start + START.length, end);
}

function main() {
  const readme = readFileSync(README_FILE, 'utf8');
  const current = readmeEventsTable(readme);
  const table = eventsTable();
  if (current === table) return console.log("README's events table is the catalogue's");
  if (process.argv.includes('--check')) {
    console.error("README's events table differs from the event catalogue: run npm run docs:events");
    process.exit(1);
  }
  writeFileSync(README_FILE, readme.replace(START + current + END, START + table + END));
  console.log("README's events table written from the event catalogue");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
