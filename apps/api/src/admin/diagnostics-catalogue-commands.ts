import { readFileSync } from 'node:fs';
import { ENVIRONMENTS, type Environment } from '../auth/principal.js';
import type { DiagnosticCatalogues } from '../diagnostics/catalogue-service.js';
import { InvalidCatalogueError } from '../diagnostics/catalogue-rules.js';
import { CliError, parseAction, required, type Command } from './command.js';

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

export async function runDiagnosticsCatalogue(catalogues: DiagnosticCatalogues, rest: string[]): Promise<unknown> {
  const { action, values } = parseAction(rest, ['import', 'show'], ['environment', 'file']);
  if (!ENVIRONMENTS.includes(values.environment as Environment)) throw new CliError('--environment must be sandbox or production', 2);
  const environment = values.environment as Environment;
  if (action === 'show') {
    if (values.file !== undefined) throw new CliError('--file is for import only', 2);
    return show(catalogues, environment);
  }
  const file = required(values, 'file');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`--file ${file} cannot be read: ${(error as Error).message}`, 2);
  }
  try {
    return { environment, ...(await catalogues.import(environment, text, file)) };
  } catch (error) {
    if (!(error instanceof InvalidCatalogueError)) throw error;
    throw new CliError(`${file} is not a valid diagnostics catalogue; nothing was imported (${error.problems.length} problem(s)):\n${error.problems.join('\n')}`, 2);
  }
}

async function show(catalogues: DiagnosticCatalogues, environment: Environment) {
  const [origin, catalogue] = await Promise.all([catalogues.origin(environment), catalogues.of(environment)]);
  return {
    environment,
    source: origin.source,
    imported_at: origin.imported_at,
    tests: catalogue.tests.map((test) => ({ id: test.id, name: test.name, panels: test.panels.map((p) => p.code), kit_ids: test.kit_ids })),
    kits: catalogue.kits.map((kit) => ({ id: kit.id, sku: kit.sku })),
  };
}
