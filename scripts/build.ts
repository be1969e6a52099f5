import { cp, readFile, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

/**
 * `npm run build`: bundles every entry point to plain JavaScript in dist/, so production runs `node dist/<entry>.js`
 * with neither tsx nor TypeScript. `--outdir DIR` builds elsewhere (the build test does, to race nothing).
 *
 * Packages in node_modules stay external (installed by `npm ci --omit=dev` next to dist/); the workspace packages
 * (@pps/shared and the services, imported by their names), whose exports point at .ts sources, are bundled in (see
 * `externalPackages`). The migrations are read at run time, so they are copied to <outdir>/drizzle (see
 * MIGRATIONS_FOLDER), and so are the checkout's browser files, to <outdir>/checkout (see CHECKOUT_ASSETS_FOLDER).
 */
export const ENTRY_POINTS = {
  start: 'scripts/start.ts',
  gateway: 'services/gateway/src/main.ts',
  payments: 'services/payments/src/main.ts',
  merchants: 'services/merchants/src/main.ts',
  settlement: 'services/settlement/src/main.ts',
  webhooks: 'services/webhooks/src/main.ts',
  migrate: 'scripts/migrate.ts',
  cli: 'scripts/cli.ts',
  // The request log's writer thread, which the gateway starts beside itself (services/gateway/src/request-log/run).
  'request-log-writer': 'services/gateway/src/request-log/run/writer-thread.ts',
};

/**
 * Every bare import stays external except a workspace package's (`@pps/...`), which esbuild resolves as Node would
 * (the symlink in node_modules, then the package's `exports`) and bundles. `packages: 'external'` cannot make that
 * exception, and an alias per package would bypass the `exports` maps that keep each service's internals private.
 */
const externalPackages: esbuild.Plugin = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@pps/') ? undefined : { path: args.path, external: true },
    );
  },
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export async function build(outdir = join(root, 'dist')): Promise<void> {
  const started = Date.now();
  await rm(outdir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: ENTRY_POINTS,
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    plugins: [externalPackages],
    // Read by MIGRATIONS_FOLDER: bundled code finds the migrations next to it.
    define: { __PPS_BUNDLED__: 'true' },
    metafile: true,
    logLevel: 'warning',
  });
  await cp(join(root, 'packages/shared/drizzle'), join(outdir, 'drizzle'), { recursive: true });
  // The checkout's browser files (plain JavaScript and CSS), served as they are (see CHECKOUT_ASSETS_FOLDER).
  await cp(join(root, 'services/gateway/src/checkout/browser'), join(outdir, 'checkout'), { recursive: true });
  // The console's own browser files, the same way (see services/gateway/src/console/assets.ts).
  await cp(join(root, 'services/gateway/src/console/browser'), join(outdir, 'console'), { recursive: true });
  await checkExternals(result.metafile);
  console.log(`built ${Object.keys(ENTRY_POINTS).length} entry points to ${outdir} in ${Date.now() - started} ms`);
}

/**
 * Every import left external must be a Node builtin or a runtime dependency: the image installs only
 * `dependencies` (`npm ci --omit=dev`), so a devDependency imported by runtime code would fail there, not here.
 */
async function checkExternals(metafile: esbuild.Metafile): Promise<void> {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const runtime = new Set(Object.keys(manifest.dependencies ?? {}));
  const builtins = new Set(builtinModules);
  const problems = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const { path, external } of output.imports) {
      if (!external) continue;
      const name = path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0]!;
      if (path.startsWith('node:') || builtins.has(name)) continue;
      if (name.startsWith('@pps/')) problems.add(`${path}: a workspace package left external (it must be bundled)`);
      else if (!runtime.has(name)) problems.add(`${path}: not in package.json "dependencies"`);
    }
  }
  if (problems.size > 0) throw new Error(`build: bad external imports:\n  ${[...problems].join('\n  ')}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
  await build(values.outdir ? resolve(values.outdir) : undefined);
}
