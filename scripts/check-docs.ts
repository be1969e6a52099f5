import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run check:docs`: every path the docs name exists. The docs are README.md and docs/*.md; a path is named
 *
 * - in backticks, from the top of the repository when it starts there (`services/…`, `test/…`, `package.json`);
 *   from the document's folder when it starts with `./` or `../` and names a file or a folder (`./x.ts`, `../y/`);
 * - in backticks, as part of a path (`payments/model/refund-rules.ts`, `new/`, `phases.ts`): a file name (with an
 *   extension of the repository's files) or a folder (ending in `/`) that some file's path in the repository ends
 *   with, as a document names a file within the section's package;
 * - as a link's target (`[text](target)`), from the document's folder, unless it is a URL or an anchor of the page.
 *
 * `:line`, `#anchor` and a trailing `/` are left off; a name with a `*` is a pattern whose folder must exist; a
 * path git ignores (build output: `dist/…`, `start.js`) or with a placeholder (`<area>`, `{id}`, `x.test.ts`) is not
 * checked; a result's stem (`bench/results/2026-11-26T15-27`) names its files. Code blocks (between ``` fences) are skipped: a shell
 * session's paths are its own. Exit 1 with each missing path and where it is named; else one line.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The repository's top-level entries: a backticked name starting with one of them is a path. */
const topLevel = new Set(readdirSync(root).filter((name) => name !== 'node_modules' && !name.startsWith('.tmp')));
topLevel.add('.ci');

export const documents = (): string[] => [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
];

type Named = { line: number; written: string; path: string; partial: boolean };

/** The file extensions of the repository's files: a backticked name with one is a file's name. */
const FILE = /\.(?:ts|tsx|js|mjs|json|ya?ml|sql|md|css|png|sh)$/;

/** The paths `text` (a Markdown document at `file`) names, each with its line; as written, and as a repo path. */
export function namedPaths(file: string, text: string): Named[] {
  const found: Named[] = [];
  let fenced = false;
  text.split('\n').forEach((content, index) => {
    if (/^\s*```/.test(content)) fenced = !fenced;
    if (fenced) return;
    const add = (written: string, from: 'document' | 'root' | 'anywhere') => {
      const bare = written.replace(/#.*$/, '').replace(/:\d+(?:-\d+)?$/, '');
      // A placeholder (`<area>`, `{id}`, `x.test.ts`) or a bare suffix (`.d.ts`) names no file.
      if (/[<>{}]/.test(bare) || bare === '' || /(?:^|\/)x\.|^\.\w/.test(bare)) return;
      const path = from === 'document' ? relative(root, resolve(root, dirname(file), bare)) : bare.replace(/\/$/, '');
      found.push({ line: index + 1, written, path, partial: from === 'anywhere' });
    };
    for (const [, span] of content.matchAll(/`([^`\s]+)`/g)) {
      const name = (span as string).replace(/[.,;]$/, '');
      const plain = name.replace(/#.*$/, '').replace(/:\d+(?:-\d+)?$/, '');
      const top = name.split('/')[0] as string;
      if (/^\.\.?\//.test(name)) {
        if (FILE.test(plain) || plain.endsWith('/')) add(name, 'document');
      } else if (topLevel.has(top) && (name.includes('/') || topLevel.has(name))) add(name, 'root');
      else if (
        /^[\w@.-]+(?:\/[\w@.*-]+)*\/?(?::\d+)?$/.test(name) &&
        (FILE.test(plain) || (name.endsWith('/') && name.length > 1))
      ) {
        add(name, 'anywhere');
      }
    }
    for (const [, target] of content.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = target as string;
      if (/^[a-z][a-z+.-]*:/i.test(link) || link.startsWith('#') || link.startsWith('/')) continue;
      add(link, 'document');
    }
  });
  return found;
}

/** Every file git has or would add, and each of their folders, as paths from the top. */
function repositoryPaths(): Set<string> {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  const paths = new Set<string>();
  for (const path of files) {
    const parts = path.split('/');
    for (let end = 1; end <= parts.length; end++) paths.add(parts.slice(0, end).join('/'));
  }
  return paths;
}

/** Whether git ignores the path, as a file or as a folder (`dist/` matches folders only). */
const ignored = (path: string) => {
  try {
    execFileSync('git', ['check-ignore', path, `${path}/`], { cwd: root, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Whether a named path exists: a pattern (`*`) by the folder before its first `*`; a stem by its files. */
function existsIn(paths: Set<string>, { path, partial }: Named): boolean {
  const fixed = path.includes('*') ? path.slice(0, path.indexOf('*')).replace(/\/?[^/]*$/, '') : path;
  if (partial) {
    if (fixed === '') return true;
    for (const known of paths) if (known === fixed || known.endsWith(`/${fixed}`)) return true;
    // A file of the build (`dist/…`, or a bundle's entry point: `start.js`).
    return ignored(fixed) || (fixed.endsWith('.js') && ignored(`dist/${fixed}`));
  }
  if (existsSync(join(root, fixed)) || ignored(fixed)) return true;
  const folder = join(root, dirname(fixed));
  const stem = `${fixed.split('/').pop()}.`;
  return existsSync(folder) && readdirSync(folder).some((name) => name.startsWith(stem));
}

export function missingPaths(): string[] {
  const paths = repositoryPaths();
  const missing: string[] = [];
  for (const file of documents()) {
    for (const named of namedPaths(file, readFileSync(join(root, file), 'utf8'))) {
      if (!existsIn(paths, named)) missing.push(`${file}:${named.line}: ${named.written} does not exist`);
    }
  }
  return missing;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const missing = missingPaths();
  if (missing.length > 0) {
    console.error(`paths the docs name that do not exist:\n  ${missing.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`every path the docs name exists (${documents().join(', ')})`);
}
