/**
 * `pnpm mock`: a Prism mock of the bundled contract, answering the spec's own examples.
 * PORT overrides the port (4010).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { bundlePath, repoRoot } from './codegen/paths.js';

const port = process.env.PORT ?? '4010';
const prism = spawn(join(repoRoot, 'node_modules', '.bin', 'prism'), ['mock', bundlePath, '-p', port, '-h', '127.0.0.1'], {
  stdio: 'inherit',
});
// Stop Prism with this process, and leave with its exit code.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => prism.kill(signal));
prism.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
