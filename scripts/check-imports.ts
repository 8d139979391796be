/**
 * `pnpm lint:imports`: reads the import graph of every TypeScript file we write and checks
 * two rules: no import circle (type-only imports included), and the layers of the service
 * (apps/api/src). It first runs on the fixtures of scripts/import-rules/fixtures/ to prove
 * each rule still fires. The rules are in scripts/import-rules/; the tables are here.
 */
import { checkImports, describe, passes } from './import-rules/check.js';
import { fixtureCount, fixtureFailures, fixturesFolder } from './import-rules/fixtures.js';
import type { LayerTable } from './import-rules/layers.js';
import { readTree } from './import-rules/read-tree.js';
import { repoRoot } from './codegen/paths.js';

/**
 * The service's layers, by path under apps/api/src: `folder/**` is a whole folder, anything
 * else one file; the first layer that lists a path wins; a listed path need not exist.
 * Every other top-level folder is an area of its own (patients/, transfers/, …); every
 * other top-level file is reported as unclassified.
 */
const serviceLayers: LayerTable = {
  layers: {
    kernel: [
      'errors.ts',
      'tokens.ts',
      'clock.ts',
      'config.ts',
      'pagination.ts',
      'dates.ts',
      'check-digits.ts',
      'read-cache.ts',
      'auth/principal.ts',
      'db/**',
      'events/**',
      'background/**',
      'crypto/**',
    ],
    http: ['http/**', 'handlers/**', 'auth/**', 'docs/**', 'generated/**'],
    drivers: ['sandbox/**', 'admin/**'],
    composition: ['services.ts', 'workers.ts', 'app.ts', 'server.ts'],
  },
  services: 'services.ts',
};

/** The service, whose layers rule 2 checks. */
const serviceRoot = 'apps/api/src';

/** Where rule 1 looks for circles (relative to the repository; `*` is each package). */
const scanned = ['apps/api/src', 'apps/api/bench', 'apps/api/test', 'packages/*/src', 'packages/*/test', 'scripts'];

const failures = fixtureFailures(repoRoot, serviceLayers);
if (failures.length > 0) {
  console.log(`━━ the rules no longer fire as expected on ${fixturesFolder}`);
  for (const failure of failures) console.log(`✖ ${failure}`);
}

// The fixtures break the rules on purpose: they are proof, not part of the tree.
const report = checkImports(readTree(repoRoot, scanned, [fixturesFolder]), serviceRoot, serviceLayers);
if (passes(report) && failures.length === 0) {
  console.log(
    `imports: ${report.files} files, ${report.imports} imports; no circle; the service's layers hold ` +
      `(and all ${fixtureCount} fixtures fire as expected)`,
  );
} else {
  if (!passes(report)) console.log(describe(report).join('\n'));
  if (failures.length > 0) console.log(`✖ ${failures.length} fixture failures`);
  process.exitCode = 1;
}
