import { defineConfig } from 'vitest/config';

/**
 * The same suite runs on both databases: the embedded one, and PostgreSQL
 * (TEST_POSTGRES_URL, default the local server's `test` database). Set
 * TEST_DATABASES=sqlite to run only the embedded project. The browser tests
 * (test/browser, headless Chromium) run once, on the embedded database; TEST_BROWSER=0
 * leaves them out.
 */
const wanted = (process.env.TEST_DATABASES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const browser = process.env.TEST_BROWSER !== '0';

export default defineConfig({
  test: {
    projects: ['sqlite', 'postgres']
      .filter((name) => wanted.includes(name))
      .map((name) => ({
        extends: true as const,
        test: { name, env: { TEST_DATABASE: name }, include: ['test/*.test.ts'], setupFiles: ['test/support/error-bodies.ts'], testTimeout: 20_000, hookTimeout: 30_000 },
      }))
      .concat(
        browser
          ? [{ extends: true as const, test: { name: 'browser', setupFiles: [] as string[], env: { TEST_DATABASE: 'sqlite' }, include: ['test/browser/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } }]
          : [],
      )
      // The client packed and installed outside the workspace (test/packaging): once, on the embedded database.
      .concat([{ extends: true as const, test: { name: 'packaging', setupFiles: [] as string[], env: { TEST_DATABASE: 'sqlite' }, include: ['test/packaging/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 } }]),
  },
});
