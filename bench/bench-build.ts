import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from '../scripts/build';

/**
 * `npm start`'s build, in a folder of this bench run's own under .tmp, removed when the run's process exits (each
 * build is about 16 MB; left behind, every run added one).
 */
export async function benchBuild(): Promise<string> {
  const outdir = join('.tmp', `bench-dist-${randomBytes(3).toString('hex')}`);
  process.on('exit', () => rmSync(outdir, { recursive: true, force: true }));
  await build(outdir);
  return outdir;
}
