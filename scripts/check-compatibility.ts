/**
 * `pnpm check:compatibility`: the spec's compatibility gate (spec/VERSIONING.md). First proves
 * on a fixture pair (scripts/compatibility-fixtures/) that it still reports breaking changes,
 * then compares the bundle (packages/contract/openapi.yaml) with the released one and fails
 * when a breaking change is not listed in CHANGELOG.md under `## [Unreleased]` / `### Breaking`.
 *
 *   --self-test                  only the fixture pair
 *   --base <file | git:<rev>>    another baseline (default: spec/released/openapi.yaml)
 *   --head <file>                another head (default: the bundle)
 *   --changelog <file>           another changelog (default: CHANGELOG.md)
 *   --release                    `pnpm release:spec`: the bundle becomes the released snapshot
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { bundlePath, repoRoot } from './codegen/paths.js';
import { compareBundles, type Change } from './compatibility/breaking-changes.js';
import { listedBreakingChanges } from './compatibility/changelog.js';

const releasedPath = join(repoRoot, 'spec', 'released', 'openapi.yaml');
const changelogPath = join(repoRoot, 'CHANGELOG.md');
const fixtures = join(repoRoot, 'scripts', 'compatibility-fixtures');

interface Source {
  /** What to call it in the output. */
  name: string;
  text: string;
}

function fromFile(file: string): Source {
  return { name: relative(repoRoot, file) || file, text: readFileSync(file, 'utf8') };
}

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 256 << 20 });
  } catch {
    return undefined;
  }
}

/** The bundle as committed at a revision (`git:v1.2.0`, `git:origin/main`). */
function fromGit(rev: string): Source {
  const text = git(['show', `${rev}:${relative(repoRoot, bundlePath)}`]);
  if (text === undefined) throw new Error(`no ${relative(repoRoot, bundlePath)} at ${rev}`);
  return { name: `${relative(repoRoot, bundlePath)} at ${rev}`, text };
}

/**
 * The released spec: the committed snapshot, which `pnpm release:spec` writes in the same
 * commit that moves CHANGELOG.md's unreleased entries under the new version, so the two
 * inputs of the gate always agree, in any clone (no tags or remotes needed). Without it,
 * the bundle of the last `v*` tag.
 */
function releasedBaseline(): { source: Source; note?: string } {
  const tag = git(['describe', '--tags', '--abbrev=0', '--match', 'v*'])?.trim();
  if (existsSync(releasedPath)) {
    const source = fromFile(releasedPath);
    if (tag) {
      const tagged = git(['show', `${tag}:${relative(repoRoot, bundlePath)}`]);
      if (tagged !== undefined && JSON.stringify(parse(tagged)) !== JSON.stringify(parse(source.text))) {
        return { source, note: `${source.name} differs from the bundle of ${tag}: a release in progress, or \`pnpm release:spec\` was not run for ${tag}` };
      }
    }
    return { source };
  }
  if (tag) return { source: fromGit(tag) };
  throw new Error(`no released spec: neither ${relative(repoRoot, releasedPath)} nor a v* tag (run \`pnpm release:spec\` once)`);
}

interface Outcome {
  changes: Change[];
  breaking: Change[];
  unlisted: Change[];
  passed: boolean;
}

/** Compares two bundles, prints each breaking change on a line of its own, and answers whether the changelog allows them all. */
function check(base: Source, head: Source, changelog: Source, print: boolean): Outcome {
  const changes = compareBundles(parse(base.text), parse(head.text));
  const listed = listedBreakingChanges(changelog.text);
  const breaking = changes.filter((c) => c.verdict === 'breaking');
  const unlisted = breaking.filter((c) => !listed.has(c.id));
  const outcome = { changes, breaking, unlisted, passed: unlisted.length === 0 };
  if (!print) return outcome;
  const line = (c: Change) => `${c.id}  (${c.description}${c.overridden ? `; breaking here: ${c.overridden}` : ''})`;
  for (const c of breaking) console.log(`${listed.has(c.id) ? '✔ breaking, listed  ' : '✖ breaking, unlisted'} ${line(c)}`);
  for (const c of changes.filter((c) => c.verdict === 'deprecated')) console.log(`  deprecated          ${line(c)}`);
  for (const c of changes.filter((c) => c.verdict === 'unclassified')) console.log(`  unclassified        ${line(c)} (not failing: review it)`);
  const additive = changes.filter((c) => c.verdict === 'additive');
  console.log(`  additive            ${additive.length} change${additive.length === 1 ? '' : 's'} (allowed within a version)`);
  const found = new Set(breaking.map((c) => c.id));
  for (const id of listed) if (!found.has(id)) console.log(`  note                ${changelog.name} lists \`${id}\`, which is not a breaking change of this comparison`);
  console.log(
    `${outcome.passed ? '✔' : '✖'} ${breaking.length} breaking change${breaking.length === 1 ? '' : 's'}, ${breaking.length - unlisted.length} listed in ${changelog.name} ` +
      `(## [Unreleased] / ### Breaking), ${unlisted.length} not listed`,
  );
  if (!outcome.passed) console.log(`  List each as a bullet naming its id in backticks, or make the change additive (spec/VERSIONING.md).`);
  return outcome;
}

/** The gate on its fixture pair: what it must report, and what it must let through. */
function selfTest(): boolean {
  const at = (file: string) => fromFile(join(fixtures, file));
  const base = at('base.yaml');
  const breaking = at('head-breaking.yaml');
  const additive = at('head-additive.yaml');
  const expectedBreaking = [
    'GET /v1/widget/{widget_token} parameters.query.fields.required', // a newly required parameter
    'GET /v1/widget/{widget_token} response.200.application/json.properties.weight', // a removed response field
    'POST /v1/widget request.application/json.properties.colour.enum.blue', // a narrowed request enum
    'POST /v1/widget response.200.application/json.properties.weight', // the same field, in another operation's response
    'WEBHOOK WIDGET payload.application/json.properties.widget_token', // a removed event field
  ];
  const same = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
  const ids = (changes: Change[]) => changes.map((c) => c.id);
  const cases: { name: string; passes: () => boolean }[] = [
    {
      name: 'removed response and event fields, a newly required parameter and a narrowed request enum are breaking, and fail the gate unlisted',
      passes: () => {
        const out = check(base, breaking, at('CHANGELOG.unlisted.md'), false);
        return !out.passed && same(ids(out.unlisted), expectedBreaking);
      },
    },
    {
      name: 'the same changes pass when the changelog lists them under [Unreleased] / Breaking',
      passes: () => {
        const out = check(base, breaking, at('CHANGELOG.listed.md'), false);
        return out.passed && same(ids(out.breaking), expectedBreaking);
      },
    },
    {
      name: 'new optional fields, parameters, operations, events and response enum values pass unlisted; x- and description changes are not changes',
      passes: () => {
        const out = check(base, additive, at('CHANGELOG.unlisted.md'), false);
        const found = ids(out.changes);
        return (
          out.passed &&
          out.changes.every((c) => c.verdict === 'additive') &&
          ['GET /v1/widgets', 'WEBHOOK WIDGET_PAINTED', 'POST /v1/widget request.application/json.properties.shape', 'GET /v1/widget/{widget_token} parameters.query.expand'].every(
            (id) => found.includes(id),
          ) &&
          !found.some((id) => /x-codeSamples|description/.test(id))
        );
      },
    },
    {
      name: 'a bundle against itself has no changes',
      passes: () => check(base, base, at('CHANGELOG.unlisted.md'), false).changes.length === 0,
    },
  ];
  let passed = true;
  for (const { name, passes } of cases) {
    const ok = passes();
    passed &&= ok;
    console.log(`${ok ? '✔' : '✖'} ${name}`);
  }
  return passed;
}

function main(): number {
  const { values } = parseArgs({
    options: {
      'self-test': { type: 'boolean', default: false },
      release: { type: 'boolean', default: false },
      base: { type: 'string' },
      head: { type: 'string' },
      changelog: { type: 'string' },
    },
  });
  if (values.release) {
    mkdirSync(dirname(releasedPath), { recursive: true });
    copyFileSync(bundlePath, releasedPath);
    console.log(
      `${relative(repoRoot, releasedPath)} is now the released spec. Commit it with CHANGELOG.md, its [Unreleased] entries moved under the new version, then tag that commit v<version>.`,
    );
    return 0;
  }
  console.log('━━ the gate reports breaking changes (scripts/compatibility-fixtures/)');
  if (!selfTest()) {
    console.log('✖ the compatibility gate no longer reports what it should');
    return 1;
  }
  if (values['self-test']) return 0;

  const head = fromFile(values.head ?? bundlePath);
  const changelog = fromFile(values.changelog ?? changelogPath);
  let base: Source;
  let note: string | undefined;
  if (values.base) base = values.base.startsWith('git:') ? fromGit(values.base.slice(4)) : fromFile(values.base);
  else ({ source: base, note } = releasedBaseline());
  console.log(`\n━━ ${head.name} against ${base.name}`);
  if (note) console.log(`  note                ${note}`);
  return check(base, head, changelog, true).passed ? 0 : 1;
}

try {
  process.exitCode = main();
} catch (error) {
  console.error(`check:compatibility: ${(error as Error).message}`);
  process.exitCode = 2;
}
