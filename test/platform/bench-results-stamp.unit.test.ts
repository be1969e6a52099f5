import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resultStamp } from '../../bench/results-stamp';

describe("a bench's results file name", () => {
  const folders: string[] = [];
  const folder = () => {
    const made = mkdtempSync(join(tmpdir(), 'pps-results-'));
    folders.push(made);
    return made;
  };
  afterEach(() => {
    for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
  });
  const at = new Date('2026-11-29T19:28:41.123Z');

  it('is the minute the run finished', () => {
    expect(resultStamp('default-', at, folder())).toBe('2026-11-29T19-28');
  });

  it("takes the second too when that bench wrote a file in that minute, and only that bench's counts", () => {
    const results = folder();
    writeFileSync(join(results, 'history-2026-11-29T19-28.md'), '');
    writeFileSync(join(results, '2026-11-29T19-28.json'), '');
    expect(resultStamp('default-', at, results)).toBe('2026-11-29T19-28');
    writeFileSync(join(results, 'default-2026-11-29T19-28.md'), '');
    expect(resultStamp('default-', at, results)).toBe('2026-11-29T19-28-41');
    expect(resultStamp('', at, results)).toBe('2026-11-29T19-28-41');
  });

  it('is the minute when no results folder exists yet', () => {
    expect(resultStamp('default-', at, join(folder(), 'missing'))).toBe('2026-11-29T19-28');
  });
});
