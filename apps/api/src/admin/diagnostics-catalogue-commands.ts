import type { DiagnosticCatalogue } from '../diagnostics/catalogue.js';
import type { DiagnosticCatalogues } from '../diagnostics/catalogue-service.js';
import type { Command } from './command.js';
import { runDocumentCommand } from './document-commands.js';

export const DIAGNOSTICS_CATALOGUE_USAGE = [
  '       pnpm admin diagnostics-catalogue import --environment sandbox|production --file <catalogue.json|catalogue.csv>',
  '       pnpm admin diagnostics-catalogue show --environment sandbox|production',
];

/**
 * `diagnostics-catalogue import`: replaces the environment's catalogue of tests, panels and
 * kits with the file's (JSON, or CSV as `diagnostics/catalogue-csv.ts` describes it) and
 * prints what it holds (`{environment, tests, panels, analytes, kits}`, counts); running
 * servers see it within seconds. A file that breaks a rule exits 2 with each problem on
 * stderr, and nothing is stored.
 *
 * `diagnostics-catalogue show`: the environment's catalogue in short, and where it came from.
 */
export const diagnosticsCatalogue: Command = (services, rest) => runDiagnosticsCatalogue(services.diagnosticCatalogues, rest);

export function runDiagnosticsCatalogue(catalogues: DiagnosticCatalogues, rest: string[]): Promise<unknown> {
  return runDocumentCommand(catalogues, rest, { noun: 'diagnostics catalogue', summary });
}

/** The diagnostics catalogue in short. */
function summary(catalogue: DiagnosticCatalogue) {
  return {
    tests: catalogue.tests.map((test) => ({ id: test.id, name: test.name, panels: test.panels.map((p) => p.code), kit_ids: test.kit_ids })),
    kits: catalogue.kits.map((kit) => ({ id: kit.id, sku: kit.sku })),
  };
}
