// The package's entry: its TypeScript source inside this repository (the workspaces import it as it is), its
// build in the published package. `npm pack` and `npm publish` run `prepack` (to dist) and `postpack` (back).
import { readFileSync, writeFileSync } from 'node:fs';

const entries = {
  published: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
  workspace: { '.': './src/index.ts' },
};
const which = process.argv[2];
if (!(which in entries)) throw new Error('usage: node manifest.mjs published|workspace');
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
manifest.exports = entries[which];
writeFileSync('package.json', `${JSON.stringify(manifest, null, 2)}\n`);
