import { defineConfig } from 'vitest/config';
import { ProjectsInTurn } from './test/support/sequencer.js';

/**
 * The same suite runs on both databases: the embedded one, and PostgreSQL
 * (TEST_POSTGRES_URL, default the local server's `test` database). Set
 * TEST_DATABASES=sqlite to run only the embedded project. The browser tests
 * (test/browser, headless Chromium) run once, on the embedded database; TEST_BROWSER=0
 * leaves them out.
 *
 * Two files run at a time by default (VITEST_MAX_WORKERS to change it): on two cores the
 * sqlite and postgres projects took 437 s so on a quiet machine. Each PostgreSQL file has a database of
 * its own (test/support/test-database.ts), so files may run at once; tests that start processes
 * watch for what they wait on rather than sleeping a set time (the scheduler's process kill
 * waits for a lease in the database). The packaging test starts first (test/support/sequencer.ts).
 * Timeouts are for hangs, not speed: a test that starts service or admin CLI processes takes
 * well over 20 s on two busy cores, hence 60 s.
 */
const wanted = (process.env.TEST_DATABASES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const browser = process.env.TEST_BROWSER !== '0';

export default defineConfig({
  test: {
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 2),
    sequence: { sequencer: ProjectsInTurn },
    projects: ['sqlite', 'postgres']
      .filter((name) => wanted.includes(name))
      .map((name) => ({
        extends: true as const,
        test: { name, env: { TEST_DATABASE: name }, include: ['test/*.test.ts'], setupFiles: ['test/support/error-bodies.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
      }))
      .concat(
        browser
          ? [{ extends: true as const, test: { name: 'browser', setupFiles: [] as string[], env: { TEST_DATABASE: 'sqlite' }, include: ['test/browser/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } }]
          : [],
      )
      // The client packed and installed outside the workspace, and the built service (test/packaging): once, on the embedded database.
      .concat([{ extends: true as const, test: { name: 'packaging', setupFiles: [] as string[], env: { TEST_DATABASE: 'sqlite' }, include: ['test/packaging/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 } }]),
  },
});
