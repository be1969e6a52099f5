import { describe, expect, it } from 'vitest';
import { missingPaths, namedPaths } from '../../scripts/check-docs';

/** `npm run check:docs`: the paths the docs name, as it reads them, and that each exists (CI runs it too). */
describe('check:docs', () => {
  it('finds every path the docs name, and each exists', () => {
    expect(missingPaths()).toEqual([]);
  });

  it('reads paths from the top, from the document, as part of a path, and in links; not in code blocks', () => {
    const text = [
      'See `services/payments/src/app.ts:12`, `../README.md#quick-start`, `payments/new/phases.ts` and `new/`.',
      'Not paths: `GET /payments`, `x.test.ts`, `<area>/`, `.d.ts`, `./app`, `npm test`, `a.b`.',
      'A [link](design.md) and [a site](https://example.com) and [an anchor](#top).',
      '```sh',
      'cat services/gone.ts `services/gone.ts`',
      '```',
    ].join('\n');
    expect(namedPaths('docs/x.md', text).map(({ path, partial }) => ({ path, partial }))).toEqual([
      { path: 'services/payments/src/app.ts', partial: false },
      { path: 'README.md', partial: false },
      { path: 'payments/new/phases.ts', partial: true },
      { path: 'new', partial: true },
      { path: 'docs/design.md', partial: false },
    ]);
  });
});
