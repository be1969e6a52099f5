import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateSchema, SCHEMA_FILE } from '../scripts/sdk-types';

/**
 * The SDK's types and the API's contract never drift: the committed types are what `openapi-typescript` makes of the
 * document `/openapi.json` serves, and a wrong path or body does not type-check against them.
 */
describe('the SDK types', () => {
  it('are the served OpenAPI document’s, as generated (npm run generate -w packages/sdk)', async () => {
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    expect(
      committed === (await generateSchema()),
      'packages/sdk/src/schema.ts is stale: run npm run generate -w packages/sdk',
    ).toBe(true);
  });

  it('refuse a wrong path or body at compile time (tsc on test/sdk-typecheck, every @ts-expect-error met)', () => {
    const tsc = spawnSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'test/sdk-typecheck/tsconfig.json'],
      {
        encoding: 'utf8',
      },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 60_000);
});
