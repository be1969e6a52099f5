import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Three projects (README, Tests): `unit`, tests that need neither PostgreSQL nor Redis (seconds); `api`, the API
 * driven in-process against PostgreSQL and Redis; `slow`, whatever starts processes, a browser or a build, and the
 * fuzz suite. `npm test` runs all three, `npm run test:<project>` one.
 *
 * A file's name says its project, so no list of files is kept here by hand (with lists, a moved or renamed file
 * quietly fell into another project). In `test/`, in folders by domain, a file is `api` unless named `*.unit.test.ts`
 * or `*.slow.test.ts`; beside the code in packages/ and services/, a file is `unit` unless named `*.api.test.ts` (it
 * talks to PostgreSQL) or `*.slow.test.ts`. The globs below put each file in exactly one project.
 */

/** Migrates a template database once per run for the projects that clone it (test/global-setup.ts). */
const globalSetup = ['./test/global-setup.ts'];

export default defineConfig({
  test: {
    // Every project inherits these (`extends: true`).
    pool: 'forks',
    // One file per core (vitest's default leaves one core free): most files spend their time waiting on PostgreSQL,
    // Redis and the processes they start, so on two cores this takes npm test from about 370 s to about 250 s.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/**/*.test.ts', 'services/**/*.test.ts', 'test/**/*.unit.test.ts'],
          exclude: [...configDefaults.exclude, '**/*.api.test.ts', '**/*.slow.test.ts'],
          // Plain functions with no state left behind: the files share a worker's modules instead of each importing
          // its own (on two cores about 10 s instead of 16 s). A unit test that changes a module's state undoes it.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'api',
          // Each file builds its own stack (database, Redis prefix, app) from the modules' functions and closes it,
          // and no file mocks or changes a module: the files share a worker's modules, as `unit`'s do, instead of each
          // importing the platform again (on two cores about 50 s instead of 96 s; the files pass in any order,
          // `--sequence.shuffle.files`). A test that changes a module's state undoes it.
          isolate: false,
          include: ['test/**/*.test.ts', 'packages/**/*.api.test.ts', 'services/**/*.api.test.ts'],
          exclude: [...configDefaults.exclude, '**/*.unit.test.ts', '**/*.slow.test.ts'],
          globalSetup,
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['test/**/*.slow.test.ts', 'packages/**/*.slow.test.ts', 'services/**/*.slow.test.ts'],
          // These start processes, browsers and clusters of their own and mock no module, so they too share a
          // worker's modules instead of each importing the platform again (on two cores 323 s instead of 379 s).
          isolate: false,
          globalSetup,
        },
      },
    ],
  },
});
