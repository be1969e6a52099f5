import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * `npm run check:imports` (after madge's circle check): the boundaries between workspace packages that neither
 * TypeScript nor the bundler enforce (docs/design.md, Architecture):
 *
 * - a file imports another package (a service, @pps/shared) by its name, never by a relative path into it, so it
 *   gets the package's entry points only (its `exports`), which TypeScript does enforce;
 * - a package imports only the workspace packages its package.json declares, so npm links what it uses;
 * - every `main` and `exports` target of a workspace package exists.
 *
 * The tests are left out: a test may import the module it checks, inside a service.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['services', 'packages', 'scripts', 'bench'];

type Manifest = {
  name: string;
  main?: string;
  exports?: string | Record<string, string>;
  dependencies?: Record<string, string>;
};
type WorkspacePackage = { dir: string; manifest: Manifest };

const workspaces: WorkspacePackage[] = ['packages', 'services'].flatMap((parent) =>
  readdirSync(join(root, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, parent, entry.name, 'package.json')))
    .map((entry) => {
      const dir = join(parent, entry.name);
      return { dir, manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Manifest };
    }),
);
const packageOf = (file: string) => workspaces.find((candidate) => file.startsWith(candidate.dir + sep));

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'results') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) yield path;
  }
}

const problems = new Set<string>();

for (const { dir, manifest } of workspaces) {
  const targets = [manifest.main, ...Object.values(manifest.exports ?? {})].filter((target) => target !== undefined);
  for (const target of targets) {
    // A pattern export (`./*`) names files by substitution; its fixed part must at least be a folder.
    const path = target.includes('*') ? target.slice(0, target.indexOf('*')) : target;
    if (!existsSync(join(root, dir, path))) problems.add(`${dir}/package.json: "${target}" does not exist`);
  }
}

for (const scanned of SCANNED) {
  for (const file of sourceFiles(scanned)) {
    const own = packageOf(file);
    const declared = new Set([own?.manifest.name, ...Object.keys(own?.manifest.dependencies ?? {})]);
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (specifier.startsWith('.')) {
        const target = relative(root, resolve(root, dirname(file), specifier));
        const into = packageOf(`${target}${sep}`) ?? packageOf(target);
        if (into && into !== own) {
          problems.add(`${file}: imports ${specifier}; import ${into.manifest.name} by its name instead`);
        }
      } else if (own && specifier.startsWith('@pps/')) {
        const name = specifier.split('/').slice(0, 2).join('/');
        if (!declared.has(name)) {
          problems.add(`${own.dir}: imports ${name}, which its package.json does not declare in dependencies`);
        }
      }
    }
  }
}

if (problems.size > 0) {
  console.error(`import boundaries crossed:\n  ${[...problems].join('\n  ')}`);
  process.exit(1);
}
console.log(`import boundaries kept (${SCANNED.join(', ')}; ${workspaces.length} workspace packages)`);
