import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateSchema, SCHEMA_FILE } from '../../scripts/sdk-types';

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

  it('build to ESM with declarations (npm run build -w packages/sdk) that Node imports as they are', () => {
    const build = spawnSync('npm', ['run', 'build', '-w', 'packages/sdk'], { encoding: 'utf8' });
    expect(build.status, build.stdout + build.stderr).toBe(0);
    const imported = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const sdk = await import('./packages/sdk/dist/index.js'); console.log(Object.keys(sdk).sort().join(' '))",
      ],
      { encoding: 'utf8' },
    );
    expect(imported.stderr).toBe('');
    expect(imported.stdout.trim()).toBe('API_VERSION PpsError WebhookVerificationError createClient verifyWebhook');
    for (const file of ['index', 'client', 'errors', 'webhooks', 'schema']) {
      expect(existsSync(`packages/sdk/dist/${file}.d.ts`), file).toBe(true);
    }
  }, 90_000);
});
