/**
 * Proof that the rules still fire: each fixture under fixtures/ is a small service tree
 * (its folder is the service's root) that must produce exactly the violations listed here,
 * no more and no fewer. `clean/` uses every import the layers allow and must produce none.
 */
import { join } from 'node:path';
import { checkImports, headlines } from './check.js';
import type { LayerTable } from './layers.js';
import { readTree } from './read-tree.js';

/** Relative to the repository, posix, as the scan's paths are. */
export const fixturesFolder = 'scripts/import-rules/fixtures';

interface Fixture {
  name: string;
  /** The violations' headlines, as the check prints them (paths relative to the fixture). */
  expected: string[];
  /** For `clean/`: how many imports it must read, so a parser that reads none cannot pass. */
  imports?: number;
}

const fixtures: Fixture[] = [
  { name: 'circle', expected: ['circle in patients: a.ts -> b.ts -> c.ts -> a.ts'] },
  {
    name: 'type-circle',
    expected: ['circle (types only): orders/order.ts -> patients/patient.ts -> prescriptions/prescription.ts -> orders/order.ts'],
  },
  { name: 'self-import', expected: ['circle in patients (types only): patient.ts -> patient.ts'] },
  {
    name: 'kernel-imports-area',
    expected: ['errors.ts:2: kernel errors.ts imports area patients patients/messages.ts (patientNotFound)'],
  },
  {
    name: 'cross-area-value-import',
    expected: [
      'transfers/transfer-service.ts:2: area transfers transfers/transfer-service.ts imports area patients patients/patient-service.ts (PatientService)',
    ],
  },
  {
    name: 'area-imports-http',
    expected: ['patients/patient-service.ts:1: area patients patients/patient-service.ts imports http http/problem.ts (problem)'],
  },
  {
    name: 'driver-imports-server',
    expected: ['admin/command.ts:2: drivers admin/command.ts imports composition server.ts (startServer)'],
  },
  {
    name: 'http-imports-services-value',
    expected: ['http/routes.ts:2: http http/routes.ts imports composition services.ts (buildServices)'],
  },
  { name: 'unclassified', expected: ['helpers.ts: unclassified helpers.ts'] },
  { name: 'clean', expected: [], imports: 26 },
];

/** Runs every fixture through the check; answers what went wrong (nothing when all fire). */
export function fixtureFailures(repoRoot: string, table: LayerTable): string[] {
  return fixtures.flatMap((fixture) => failuresOf(fixture, readTree(join(repoRoot, fixturesFolder, fixture.name), ['.']), table));
}

function failuresOf(fixture: Fixture, files: Map<string, string>, table: LayerTable): string[] {
  const where = `${fixturesFolder}/${fixture.name}`;
  const report = checkImports(files, '', table);
  const got = headlines(report);
  const failures = [
    ...fixture.expected.filter((line) => !got.includes(line)).map((line) => `${where}: no longer reports\n    ${line}`),
    ...got.filter((line) => !fixture.expected.includes(line)).map((line) => `${where}: reports what it should not\n    ${line}`),
  ];
  // An import naming no file would silently drop the edge the fixture is about.
  for (const { from, line, specifier } of report.unresolved) {
    failures.push(`${where}/${from}:${line}: '${specifier}' names no file of the fixture`);
  }
  if (fixture.imports !== undefined && report.imports !== fixture.imports) {
    failures.push(`${where}: read ${report.imports} imports instead of ${fixture.imports}`);
  }
  return failures;
}

export const fixtureCount = fixtures.length;
