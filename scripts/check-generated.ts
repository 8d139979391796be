/**
 * CI's drift check: regenerate, then fail if any generated file differs from what is
 * committed (or a generated file is new and untracked), or if the `x-not-implemented`
 * markers of the spec disagree with the handlers (scripts/codegen/not-implemented.ts).
 */
import { execFileSync } from 'node:child_process';
import { relative } from 'node:path';
import { notImplementedMarkers, notImplementedMismatches } from './codegen/not-implemented.js';
import { listOperations, loadBundle } from './codegen/operations.js';
import { apiHandlersDir, generatedPaths, repoRoot } from './codegen/paths.js';

execFileSync('pnpm', ['run', '--silent', 'generate'], { cwd: repoRoot, stdio: 'inherit' });

// A stub handler must be marked in the spec (the docs then say so), and a marked operation must still be a stub.
const bundle = loadBundle();
const markers = notImplementedMarkers(bundle);
const mismatches = notImplementedMismatches(
  listOperations(bundle).map(({ operationId, area }) => ({ operationId, area, notImplemented: markers.get(operationId) ?? false })),
  apiHandlersDir,
);
if (mismatches.length > 0) {
  console.error(`The x-not-implemented markers disagree with the handlers:\n${mismatches.map((m) => `✖ ${m}`).join('\n')}`);
  process.exit(1);
}
const paths = generatedPaths.map((p) => relative(repoRoot, p));
const status = execFileSync('git', ['status', '--porcelain', '--', ...paths], { cwd: repoRoot, encoding: 'utf8' });
if (status.trim()) {
  console.error('Generated files differ from the spec. Run `pnpm generate` and commit the result:\n' + status);
  execFileSync('git', ['--no-pager', 'diff', '--stat', '--', ...paths], { cwd: repoRoot, stdio: 'inherit' });
  process.exit(1);
}
console.log('generated files are up to date');
