import { buildOpenApiDocument } from '@pps/gateway';
import { allRoutes } from '@pps/shared/contract';
import { schema } from '@pps/shared/db';
import { eventTypes } from '@pps/shared/events';
import { describe, expect, it } from 'vitest';
import { cliCommands } from '../../scripts/cli-commands';
import { decisionRecords, eventsTable, generatedBlock, generatedTables, readDocument } from '../../scripts/docs-tables';

/**
 * What the documents say that the code defines. The tables are generated (`npm run docs:tables` writes them again);
 * the prose that cannot be is checked against the code here.
 */
const DOCUMENTS = ['README.md', 'docs/api.md', 'docs/design.md', 'docs/decisions.md', 'packages/sdk/README.md'];

const tableColumn = (table: string) =>
  table
    .split('\n')
    .slice(2, -1)
    .map((row) => /^\| `([^`]+)` \|/.exec(row)?.[1]);

describe('the generated tables', () => {
  for (const { document, name, render } of generatedTables) {
    it(`${document}'s ${name} table is the code's: run npm run docs:tables when this fails`, () => {
      expect(generatedBlock(readDocument(document), name, document)).toBe(render());
    });
  }

  it('have a row for every event type, balance transaction type and CLI command', () => {
    expect(tableColumn(eventsTable())).toEqual([...eventTypes]);
    const table = (name: string) => generatedTables.find((each) => each.name === name)?.render() ?? '';
    expect(tableColumn(table('balance-transaction-types'))).toEqual([...schema.balanceTransactionTypes]);
    expect(tableColumn(table('cli-commands')).map((command) => command?.split(' ')[4])).toEqual(
      Object.keys(cliCommands),
    );
  });
});

describe('the records of docs/decisions.md', () => {
  it('are numbered 1, 2, 3… in order, each title once', () => {
    const records = decisionRecords();
    expect(records.length).toBeGreaterThan(40);
    expect(records.map((record) => record.number)).toEqual(records.map((_, index) => index + 1));
    expect(new Set(records.map((record) => record.anchor)).size).toBe(records.length);
  });

  it('a heading out of order is found', () => {
    const records = decisionRecords('## 1. First\n\ntext\n\n## 3. Third (`x`)\n');
    expect(records).toEqual([
      { number: 1, title: 'First', anchor: '1-first' },
      { number: 3, title: 'Third (`x`)', anchor: '3-third-x' },
    ]);
  });
});

describe("the documents' prose", () => {
  const document = buildOpenApiDocument(allRoutes, 'https://pps.invalid');
  const operations = Object.values(document.paths ?? {}).flatMap((item) => Object.keys(item ?? {})).length;

  it('counts the operations /openapi.json has, wherever it counts them', () => {
    expect(operations).toBeGreaterThan(30);
    for (const file of DOCUMENTS) {
      const counts = [...readDocument(file).matchAll(/\b(\d[\d,]*) (?:API )?operations\b/g)].map((match) =>
        Number(match[1]?.replaceAll(',', '')),
      );
      expect(counts, `${file} counts operations`).toEqual(counts.map(() => operations));
    }
  });

  it("README's What is built today names every part of the API (each tag of /openapi.json)", () => {
    const readme = readDocument('README.md');
    const start = readme.indexOf('What is built today:');
    expect(start).toBeGreaterThan(0);
    const built = readme.slice(start, readme.indexOf('\n\nOps:', start)).toLowerCase();
    const tags = new Set(
      Object.values(document.paths ?? {})
        .flatMap((item) => Object.values(item ?? {}))
        .flatMap((operation) => (operation as { tags?: string[] }).tags ?? []),
    );
    expect(tags.size).toBeGreaterThan(10);
    expect([...tags].filter((tag) => !built.includes(tag.toLowerCase()))).toEqual([]);
  });
});
