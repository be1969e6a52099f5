import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

declare const __PPS_BUNDLED__: boolean | undefined;

/**
 * The browser files of the checkout (plain JavaScript and CSS, no build step): `browser/` next to this module in
 * the sources, `checkout/` next to the bundle once built (scripts/build.ts copies it there).
 */
export const CHECKOUT_ASSETS_FOLDER = fileURLToPath(
  new URL(typeof __PPS_BUNDLED__ !== 'undefined' && __PPS_BUNDLED__ ? './checkout' : './browser', import.meta.url),
);

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export type Asset = { body: string; type: string };

const cache = new Map<string, Asset>();

/** One of the browser files by name (`frame.js`), read once; undefined for any other name. */
export function checkoutAsset(name: string): Asset | undefined {
  const type = TYPES[name.slice(name.lastIndexOf('.'))];
  if (!type || !/^[a-z-]+\.(?:js|css)$/.test(name)) return undefined;
  let asset = cache.get(name);
  if (!asset) {
    try {
      asset = { body: readFileSync(join(CHECKOUT_ASSETS_FOLDER, name), 'utf8'), type };
    } catch {
      return undefined;
    }
    cache.set(name, asset);
  }
  return asset;
}
