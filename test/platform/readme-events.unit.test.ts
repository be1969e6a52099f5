import { readFileSync } from 'node:fs';
import { eventTypes } from '@pps/shared/events';
import { describe, expect, it } from 'vitest';
import { eventsTable, README_FILE, readmeEventsTable } from '../../scripts/docs-events';

/** README's events table is the event catalogue's, row for row (`npm run docs:events` writes it again). */
describe("README's events table", () => {
  it('is the one generated from the event catalogue: run npm run docs:events when this fails', () => {
    expect(readmeEventsTable(readFileSync(README_FILE, 'utf8'))).toBe(eventsTable());
  });

  it('has a row for every event type a webhook can be subscribed to', () => {
    const rows = eventsTable().split('\n').slice(2, -1);
    expect(rows.map((row) => /^\| `([\w.]+)` \| .+ \|$/.exec(row)?.[1])).toEqual([...eventTypes]);
  });
});
