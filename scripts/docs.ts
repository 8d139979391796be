/** `pnpm docs`: the Redoc HTML reference, built from the bundle into dist/docs/index.html. */
import { execFileSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { bundlePath, repoRoot } from './codegen/paths.js';

const output = join(repoRoot, 'dist', 'docs', 'index.html');
execFileSync(join(repoRoot, 'node_modules', '.bin', 'redocly'), ['build-docs', bundlePath, '-o', output], {
  stdio: 'inherit',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
console.log(`docs: ${relative(repoRoot, output)}`);
