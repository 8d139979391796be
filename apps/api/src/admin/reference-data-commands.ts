import { CliError, parseAction, required } from './command.js';
import type { Command } from './command.js';
import { importFile } from './document-commands.js';

export const REFERENCE_DATA_USAGE = [
  '       pnpm admin reference-data import-locations --file <pharmacy-locations.json|.csv>',
  '       pnpm admin reference-data import-inventory --file <pharmacy-inventory.csv|.json>',
  '       pnpm admin reference-data import-zip-centroids --file <zip-centroids.csv|.json>',
  '       pnpm admin reference-data show',
  '       pnpm admin coverage enable|disable|show --customer <id>',
];

/**
 * `reference-data import-locations|import-inventory|import-zip-centroids --file <file>`:
 * replaces one table of the pharmacy reference data (shared by every customer) with the
 * file's rows and prints what the data holds (counts); running servers see it within 30
 * seconds. A file that breaks a rule exits 2 with each problem on stderr, and nothing is
 * stored. `reference-data show`: the counts. When the locations table is empty on first
 * use, the shipped sample (`reference-data/`) is loaded.
 */
export const referenceData: Command = async (services, rest) => {
  const { action, values } = parseAction(rest, ['import-locations', 'import-inventory', 'import-zip-centroids', 'show'], ['file']);
  const locations = services.pharmacyLocations;
  if (action === 'show') return locations.summary();
  const file = required(values, 'file');
  return importFile(file, 'valid', (text) => {
    if (action === 'import-locations') return locations.importLocations(text, file);
    if (action === 'import-inventory') return locations.importInventory(text, file);
    return locations.importZipCentroids(text, file);
  });
};

/** `coverage enable|disable|show --customer <id>`: whether the customer may use `GET /v1/pharmacy-coverage`. */
export const coverage: Command = async (services, rest) => {
  const { action, values } = parseAction(rest, ['enable', 'disable', 'show'], ['customer']);
  const customerId = required(values, 'customer');
  if (action !== 'show' && !(await services.coverage.setEnabled(customerId, action === 'enable'))) throw new CliError(`no customer ${customerId}`, 1);
  return { customer_id: customerId, coverage_enabled: await services.coverage.isEnabled(customerId) };
};
