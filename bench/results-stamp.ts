import { existsSync, readdirSync } from 'node:fs';

const RESULTS = 'bench/results';

/**
 * The name a bench's results take in bench/results: the minute it finished (`2026-11-29T19-28`), and its second too
 * when that bench already wrote a file in that minute, so two short runs in one minute keep both files.
 */
export function resultStamp(prefix: string, now = new Date(), folder = RESULTS): string {
  const iso = now.toISOString();
  const minute = iso.slice(0, 16).replace(':', '-');
  const taken = existsSync(folder) && readdirSync(folder).some((name) => name.startsWith(`${prefix}${minute}.`));
  return taken ? `${minute}-${iso.slice(17, 19)}` : minute;
}
