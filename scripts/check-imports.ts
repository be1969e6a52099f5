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
 * - every `main` and `exports` target of a workspace package exists;
 * - inside a package, the folders of every folder (`src/` and each below it) and the files beside them import one
 *   another without a loop: each stands above what it imports, so no import runs from a lower one back up to a
 *   higher one, at any depth;
 * - the table of packages and their dependencies in docs/design.md (Architecture, "Dependencies between packages")
 *   names every workspace package with exactly the workspace packages its package.json declares;
 * - test code stays in tests: nothing here imports from `test/`, and production code (services, packages) does not
 *   import `@pps/shared/testing`, what the tests and the bench share.
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

const TESTING = join('packages', 'shared', 'src', 'testing');
/** Production code: a service's or package's file, not the tests' and the bench's own kit. */
const isProduction = (file: string) =>
  (file.startsWith(`services${sep}`) || file.startsWith(`packages${sep}`)) && !file.startsWith(TESTING);

/**
 * The rooms an import inside a package joins: the folder both files are in (`src/` or any folder below it), and in
 * it the room of each, the folder (or the file) that holds it. An import between two files of one folder joins none.
 */
function roomsOf(dir: string, file: string, target: string): { folder: string; from: string; to: string } | undefined {
  const [a, b] = [relative(join(dir, 'src'), file).split(sep), relative(join(dir, 'src'), target).split(sep)];
  let shared = 0;
  while (shared < a.length - 1 && shared < b.length - 1 && a[shared] === b[shared]) shared++;
  const [from, to] = [a[shared]!.replace(/\.tsx?$/, ''), b[shared]!.replace(/\.tsx?$/, '')];
  if (from === to) return undefined;
  return { folder: join(dir, 'src', ...a.slice(0, shared)), from, to };
}
/** Per folder of a package (its `src/` and every folder below), which of its rooms import which. */
const placeImports = new Map<string, Map<string, Set<string>>>();

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
        if (target === 'test' || target.startsWith(`test${sep}`)) {
          problems.add(
            `${file}: imports ${specifier}; test code stays in test/ (share it through @pps/shared/testing)`,
          );
        }
        if (isProduction(file) && target.startsWith(TESTING)) {
          problems.add(`${file}: imports ${specifier}; production code does not import the testing kit`);
        }
        const into = packageOf(`${target}${sep}`) ?? packageOf(target);
        if (into && into !== own) {
          problems.add(`${file}: imports ${specifier}; import ${into.manifest.name} by its name instead`);
        } else if (own && into === own && file.startsWith(join(own.dir, 'src'))) {
          const rooms = roomsOf(own.dir, file, target);
          if (rooms) {
            const graph = placeImports.get(rooms.folder) ?? new Map<string, Set<string>>();
            placeImports.set(rooms.folder, graph);
            graph.set(rooms.from, (graph.get(rooms.from) ?? new Set()).add(rooms.to));
          }
        }
      } else if (isProduction(file) && specifier.startsWith('@pps/shared/testing')) {
        problems.add(`${file}: imports ${specifier}; production code does not import the testing kit`);
      } else if (own && specifier.startsWith('@pps/')) {
        const name = specifier.split('/').slice(0, 2).join('/');
        if (!declared.has(name)) {
          problems.add(`${own.dir}: imports ${name}, which its package.json does not declare in dependencies`);
        }
      }
    }
  }
}

/** The first loop among a package's places, as `a → b → a`, found depth first; none: undefined. */
function loopIn(graph: Map<string, Set<string>>): string[] | undefined {
  const done = new Set<string>();
  const visit = (place: string, path: string[]): string[] | undefined => {
    const seen = path.indexOf(place);
    if (seen >= 0) return [...path.slice(seen), place];
    if (done.has(place)) return undefined;
    for (const next of graph.get(place) ?? []) {
      const loop = visit(next, [...path, place]);
      if (loop) return loop;
    }
    done.add(place);
    return undefined;
  };
  for (const place of graph.keys()) {
    const loop = visit(place, []);
    if (loop) return loop;
  }
  return undefined;
}
for (const [dir, graph] of placeImports) {
  const loop = loopIn(graph);
  if (loop) problems.add(`${dir}: ${loop.join(' → ')} import one another; an import runs back up`);
}

/** docs/design.md's rows `| \`@pps/x\` | \`@pps/y\`, … |` (or `none`): what the design says each package uses. */
const documented = new Map<string, string[]>();
for (const line of readFileSync(join(root, 'docs/design.md'), 'utf8').split('\n')) {
  const row = /^\| `(@pps\/[a-z-]+)` \| ([^|]*) \|/.exec(line);
  if (row) documented.set(row[1]!, row[2]!.match(/@pps\/[a-z-]+/g) ?? []);
}
for (const { dir, manifest } of workspaces) {
  const declared = Object.keys(manifest.dependencies ?? {}).filter((name) => name.startsWith('@pps/'));
  const written = documented.get(manifest.name);
  if (!written) problems.add(`docs/design.md: no row for ${manifest.name} in the table of package dependencies`);
  else if ([...declared].sort().join() !== [...written].sort().join()) {
    problems.add(
      `docs/design.md: ${manifest.name} depends on ${written.join(', ') || 'none'}; ${dir}/package.json declares ${declared.join(', ') || 'none'}`,
    );
  }
}

if (problems.size > 0) {
  console.error(`import boundaries crossed:\n  ${[...problems].join('\n  ')}`);
  process.exit(1);
}
console.log(`import boundaries kept (${SCANNED.join(', ')}; ${workspaces.length} workspace packages)`);
