/**
 * `pnpm lint:spec`: lints the spec twice, the split sources and the bundle, with both
 * Spectral (spec/.spectral.yaml) and Redocly (spec/redocly.yaml), then lints a broken
 * fixture to prove each of our own Spectral rules still reports what it should.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { bundlePath, repoRoot, specRoot } from './codegen/paths.js';

const spectralRuleset = join(repoRoot, 'spec', '.spectral.yaml');
const redoclyConfig = join(repoRoot, 'spec', 'redocly.yaml');
const brokenFixture = join(repoRoot, 'spec', 'spectral', 'fixtures', 'bad.yaml');

const env = {
  ...process.env,
  NO_UPDATE_NOTIFIER: '1',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  REDOCLY_TELEMETRY: 'off',
};

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a linter to its end (the linters run at the same time; their output is printed in order after). */
function run(tool: string, args: string[]): Promise<Run> {
  const bin = join(repoRoot, 'node_modules', '.bin', tool);
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Redocly prints a boxed Node.js 20 end-of-life notice on every run that no setting turns off. */
function withoutBanners(text: string): string {
  return text.replace(/^\s*[╔║╚].*\n?/gmu, '');
}

/** What a check printed, and whether it passed. */
interface Outcome {
  output: string;
  passed: boolean;
}

/** Runs one linter on one document: its output, and whether it passed. */
async function lint(tool: string, args: string[]): Promise<Outcome> {
  const { status, stdout, stderr } = await run(tool, args);
  return { output: withoutBanners(stdout + stderr).trim() + '\n', passed: status === 0 };
}

/** The rules our ruleset defines itself (those with a `given`), as opposed to extended ones. */
function ownRules(): string[] {
  const { rules } = parse(readFileSync(spectralRuleset, 'utf8')) as { rules: Record<string, unknown> };
  return Object.entries(rules)
    .filter(([, rule]) => typeof rule === 'object' && rule !== null && 'given' in rule)
    .map(([name]) => name);
}

/** Lints the broken fixture and checks that every rule of our own reported it at least once. */
async function ownRulesFire(): Promise<Outcome> {
  const { status, stdout, stderr } = await run('spectral', ['lint', brokenFixture, '--ruleset', spectralRuleset, '--format', 'json', '--quiet']);
  if (status !== 1) {
    // 0: nothing reported at all; 2 or more: Spectral itself failed (a broken ruleset or function).
    return { output: `spectral exited ${status} instead of 1\n${stderr}\n`, passed: false };
  }
  const reported = new Set((JSON.parse(stdout) as { code: string }[]).map((result) => result.code));
  const silent = ownRules().filter((rule) => !reported.has(rule));
  const output = ownRules().map((rule) => `${silent.includes(rule) ? '✖ silent  ' : '✔ reported'} ${rule}\n`).join('');
  return { output, passed: silent.length === 0 };
}

const sources = relative(repoRoot, specRoot);
const bundle = relative(repoRoot, bundlePath);
const spectralArgs = (doc: string) => ['lint', doc, '--ruleset', spectralRuleset, '--fail-severity', 'error'];
const redoclyArgs = (doc: string) => ['lint', doc, '--config', redoclyConfig];

const checks: { name: string; passes: () => Promise<Outcome> }[] = [
  { name: `spectral ${sources}`, passes: () => lint('spectral', spectralArgs(sources)) },
  { name: `spectral ${bundle}`, passes: () => lint('spectral', spectralArgs(bundle)) },
  { name: `redocly ${sources}`, passes: () => lint('redocly', redoclyArgs(sources)) },
  { name: `redocly ${bundle}`, passes: () => lint('redocly', redoclyArgs(bundle)) },
  { name: `spectral rules of our own fire on ${relative(repoRoot, brokenFixture)}`, passes: ownRulesFire },
];

// The five runs are independent processes: they run at the same time, and print in order.
const outcomes = await Promise.all(checks.map(({ passes }) => passes()));
const failed = new Set<string>();
checks.forEach(({ name }, i) => {
  console.log(`\n━━ ${name}`);
  process.stdout.write(outcomes[i]!.output);
  if (!outcomes[i]!.passed) failed.add(name);
});
console.log('\n━━ lint:spec summary');
for (const { name } of checks) console.log(`${failed.has(name) ? '✖' : '✔'} ${name}`);
if (failed.size > 0) process.exitCode = 1;
