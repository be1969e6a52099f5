import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Three projects (README, Tests): `unit`, the tests beside the code that need no server (seconds); `api`, the API
 * driven in-process against PostgreSQL and Redis; `slow`, whatever starts processes, a browser or a build, and the
 * fuzz suite. `npm test` runs all three, `npm run test:<project>` one.
 */

/** Tests beside the code that talk to PostgreSQL: they run in `api`, with the template database. */
const besideCodeWithDatabase = ['packages/shared/src/db/**/*.test.ts', 'services/webhooks/src/**/*.test.ts'];

/** The files of `slow`: the fuzz suite, the browser, the build, and every file that starts processes of its own. */
const slow = [
  'test/fuzz.test.ts',
  'test/checkout-browser.test.ts',
  'test/checkout-demo.test.ts',
  'test/build.test.ts',
  'test/multi-process.test.ts',
  'test/payments-crash.test.ts',
  'test/settlement-processes.test.ts',
  'test/payouts-processes.test.ts',
  'test/webhooks-processes.test.ts',
  'test/metrics-processes.test.ts',
  'test/processes-apart.test.ts',
  'test/metrics-cluster.test.ts',
  'test/database-restart.test.ts',
  'test/server-limits.test.ts',
  'test/readme.test.ts',
  'test/listen-host.test.ts',
  'test/compose.test.ts',
  'test/sdk-example.test.ts',
  'test/sdk-types.test.ts',
];

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
          include: ['packages/**/*.test.ts', 'services/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...besideCodeWithDatabase],
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
          include: ['test/**/*.test.ts', ...besideCodeWithDatabase],
          exclude: [...configDefaults.exclude, ...slow],
          globalSetup,
        },
      },
      {
        extends: true,
        test: { name: 'slow', include: slow, globalSetup },
      },
    ],
  },
});
