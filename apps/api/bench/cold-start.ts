/**
 * `pnpm bench:start`: the service's cold start and idle memory. Starts the process N times
 * (COLD_START_RUNS, default 10), each on a new embedded database in a temp folder, and
 * measures the time from spawn to the first `200` of `GET /health/live`, then the resident
 * memory (VmRSS of the process and its children, from /proc) after ~2 s idle. Both entries
 * are measured, alternately: the built JavaScript (`pnpm start`: node dist/server.js; built
 * first if stale) and the TypeScript source through tsx (`pnpm dev`).
 *
 *   COLD_START_RUNS=10 COLD_START_TARGETS=built,tsx COLD_START_IDLE_MS=2000 pnpm bench:start
 *   COLD_START_TARGETS=built,tsx:/elsewhere/apps/api/src/server.ts pnpm bench:start
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './processes.js';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.env.COLD_START_RUNS ?? 10);
const idleMs = Number(process.env.COLD_START_IDLE_MS ?? 2000);
const nodeFlags = ['--max-semi-space-size=32', '--single-threaded-gc'];

const targets: Record<string, [string, string[]]> = {
  built: [process.execPath, [...nodeFlags, join(apiRoot, 'dist', 'server.js')]],
  tsx: [join(apiRoot, 'node_modules', '.bin', 'tsx'), [...nodeFlags, join(apiRoot, 'src', 'server.ts')]],
};
const chosen = (process.env.COLD_START_TARGETS ?? 'built,tsx').split(',').map((t) => t.trim());
for (const name of chosen) {
  // `tsx:<file>`: another source tree's entry (an older checkout, to compare with).
  if (name.startsWith('tsx:')) targets[name] = [targets.tsx![0], [...nodeFlags, name.slice(4)]];
  if (!targets[name]) throw new Error(`COLD_START_TARGETS: unknown target ${name} (built, tsx, tsx:<server.ts>)`);
}

/** VmRSS in kB of a process and of all its descendants (tsx runs the service in a child process). */
function treeRssKb(pid: number): number {
  let total = 0;
  try {
    total = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    for (const child of children ? children.split(/\s+/) : []) total += treeRssKb(Number(child));
  } catch {
    // the process ended meanwhile
  }
  return total;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

interface Sample {
  startMs: number;
  rssMb: number;
}

async function measureOnce(target: string): Promise<Sample> {
  const [command, args] = targets[target]!;
  const folder = mkdtempSync(join(tmpdir(), 'pharmacy-cold-start-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/health/live`;
  const env = {
    ...process.env,
    DATABASE_URL: join(folder, 'pharmacy.db'),
    SECRETS_KEY: randomBytes(32).toString('base64'),
    TOKEN_SIGNING_KEY: randomBytes(32).toString('base64'),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  let output = '';
  const started = performance.now();
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  try {
    let startMs: number;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${target} exited with ${child.exitCode}:\n${output}`);
      try {
        const response = await fetch(url);
        await response.arrayBuffer();
        if (response.status === 200) {
          startMs = performance.now() - started;
          break;
        }
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 60_000) throw new Error(`${target} did not answer within 60 s:\n${output}`);
      await new Promise((done) => setTimeout(done, 5));
    }
    await new Promise((done) => setTimeout(done, idleMs));
    return { startMs, rssMb: treeRssKb(child.pid!) / 1024 };
  } finally {
    await stop(child);
    rmSync(folder, { recursive: true, force: true });
  }
}

function summary(values: number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  return [sorted[0]!, median, sorted[sorted.length - 1]!].map((v) => v.toFixed(digits)).join(' / ');
}

if (chosen.includes('built')) execFileSync(process.execPath, [join(apiRoot, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });

const samples: Record<string, Sample[]> = Object.fromEntries(chosen.map((t) => [t, []]));
// Alternated, so a busy machine weighs on every target alike.
for (let run = 1; run <= runs; run++) {
  for (const target of chosen) {
    const sample = await measureOnce(target);
    samples[target]!.push(sample);
    console.log(`run ${run}/${runs} ${target.padEnd(6)} start ${sample.startMs.toFixed(0).padStart(5)} ms  idle RSS ${sample.rssMb.toFixed(1).padStart(6)} MB`);
  }
}

console.log(`\n${runs} runs each; min / median / max; RSS after ${idleMs} ms idle (process and its children)`);
console.log(`${'target'.padEnd(8)}${'cold start (ms)'.padEnd(26)}idle RSS (MB)`);
for (const target of chosen) {
  const list = samples[target]!;
  console.log(`${(target.startsWith('tsx:') ? 'tsx:…' : target).padEnd(8)}${summary(list.map((s) => s.startMs), 0).padEnd(26)}${summary(list.map((s) => s.rssMb), 1)}`);
}
