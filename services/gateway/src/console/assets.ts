import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

declare const __PPS_BUNDLED__: boolean | undefined;

/**
 * The console's own browser files (plain JavaScript and CSS, no build step): `browser/` next to this module in the
 * sources, `console/` next to the bundle once built (scripts/build.ts copies it there).
 */
const OWN_FOLDER = fileURLToPath(
  new URL(typeof __PPS_BUNDLED__ !== 'undefined' && __PPS_BUNDLED__ ? './console' : './browser', import.meta.url),
);

const require = createRequire(import.meta.url);

/** What the console serves under /console/assets/, by name: its own files, and htmx and uPlot from npm. */
const FILES: Record<string, { path: () => string; type: string }> = {
  'console.css': { path: () => join(OWN_FOLDER, 'console.css'), type: 'text/css; charset=utf-8' },
  'console.js': { path: () => join(OWN_FOLDER, 'console.js'), type: 'text/javascript; charset=utf-8' },
  'htmx.min.js': { path: () => require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
  'uPlot.min.js': {
    path: () => require.resolve('uplot/dist/uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'uPlot.min.css': { path: () => require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

const cache = new Map<string, { body: string; type: string }>();

/** One of the console's browser files by name, read once; undefined for any other name. */
export function consoleAsset(name: string): { body: string; type: string } | undefined {
  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!file) return undefined;
  let asset = cache.get(name);
  if (!asset) {
    asset = { body: readFileSync(file.path(), 'utf8'), type: file.type };
    cache.set(name, asset);
  }
  return asset;
}
