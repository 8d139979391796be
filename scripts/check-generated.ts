/**
 * CI's drift check: regenerate, then fail if any generated file differs from what is
 * committed (or a generated file is new and untracked).
 */
import { execFileSync } from 'node:child_process';
import { relative } from 'node:path';
import { generatedPaths, repoRoot } from './codegen/paths.js';

execFileSync('pnpm', ['run', '--silent', 'generate'], { cwd: repoRoot, stdio: 'inherit' });
const paths = generatedPaths.map((p) => relative(repoRoot, p));
const status = execFileSync('git', ['status', '--porcelain', '--', ...paths], { cwd: repoRoot, encoding: 'utf8' });
if (status.trim()) {
  console.error('Generated files differ from the spec. Run `pnpm generate` and commit the result:\n' + status);
  execFileSync('git', ['--no-pager', 'diff', '--stat', '--', ...paths], { cwd: repoRoot, stdio: 'inherit' });
  process.exit(1);
}
console.log('generated files are up to date');
