/**
 * `pnpm lint:spec`: lints the spec twice, the split sources and the bundle, with both
 * Spectral (spec/.spectral.yaml) and Redocly (spec/redocly.yaml), then lints a broken
 * fixture to prove each of our own Spectral rules still reports what it should.
 */
import { spawnSync } from 'node:child_process';
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

function run(tool: string, args: string[]): Run {
  const bin = join(repoRoot, 'node_modules', '.bin', tool);
  const { status, stdout, stderr, error } = spawnSync(bin, args, { cwd: repoRoot, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (error) throw error;
  return { status, stdout, stderr };
}

/** Redocly prints a boxed Node.js 20 end-of-life notice on every run that no setting turns off. */
function withoutBanners(text: string): string {
  return text.replace(/^\s*[╔║╚].*\n?/gmu, '');
}

/** Runs one linter on one document, prints its output, answers whether it passed. */
function lint(tool: string, args: string[]): boolean {
  const { status, stdout, stderr } = run(tool, args);
  process.stdout.write(withoutBanners(stdout + stderr).trim() + '\n');
  return status === 0;
}

/** The rules our ruleset defines itself (those with a `given`), as opposed to extended ones. */
function ownRules(): string[] {
  const { rules } = parse(readFileSync(spectralRuleset, 'utf8')) as { rules: Record<string, unknown> };
  return Object.entries(rules)
    .filter(([, rule]) => typeof rule === 'object' && rule !== null && 'given' in rule)
    .map(([name]) => name);
}

/** Lints the broken fixture and checks that every rule of our own reported it at least once. */
function ownRulesFire(): boolean {
  const { status, stdout, stderr } = run('spectral', ['lint', brokenFixture, '--ruleset', spectralRuleset, '--format', 'json', '--quiet']);
  if (status !== 1) {
    // 0: nothing reported at all; 2 or more: Spectral itself failed (a broken ruleset or function).
    console.log(`spectral exited ${status} instead of 1\n${stderr}`);
    return false;
  }
  const reported = new Set((JSON.parse(stdout) as { code: string }[]).map((result) => result.code));
  const silent = ownRules().filter((rule) => !reported.has(rule));
  for (const rule of ownRules()) console.log(`${silent.includes(rule) ? '✖ silent  ' : '✔ reported'} ${rule}`);
  return silent.length === 0;
}

const sources = relative(repoRoot, specRoot);
const bundle = relative(repoRoot, bundlePath);
const spectralArgs = (doc: string) => ['lint', doc, '--ruleset', spectralRuleset, '--fail-severity', 'error'];
const redoclyArgs = (doc: string) => ['lint', doc, '--config', redoclyConfig];

const checks: { name: string; passes: () => boolean }[] = [
  { name: `spectral ${sources}`, passes: () => lint('spectral', spectralArgs(sources)) },
  { name: `spectral ${bundle}`, passes: () => lint('spectral', spectralArgs(bundle)) },
  { name: `redocly ${sources}`, passes: () => lint('redocly', redoclyArgs(sources)) },
  { name: `redocly ${bundle}`, passes: () => lint('redocly', redoclyArgs(bundle)) },
  { name: `spectral rules of our own fire on ${relative(repoRoot, brokenFixture)}`, passes: ownRulesFire },
];

const failed = new Set<string>();
for (const { name, passes } of checks) {
  console.log(`\n━━ ${name}`);
  if (!passes()) failed.add(name);
}
console.log('\n━━ lint:spec summary');
for (const { name } of checks) console.log(`${failed.has(name) ? '✖' : '✔'} ${name}`);
if (failed.size > 0) process.exitCode = 1;
