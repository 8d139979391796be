import { extname } from 'node:path';
import { readCatalogueCsv } from './catalogue-csv.js';
import { checkCatalogue, type CatalogueCheck } from './catalogue-rules.js';

/** The largest catalogue file read (characters): far above 500 tests of a few panels each. */
export const MAX_CATALOGUE_FILE_CHARS = 10_000_000;

/** The kinds of file a catalogue is read from, by the file name's extension. */
export const CATALOGUE_FILE_KINDS = ['.json', '.csv'] as const;

/**
 * A catalogue from a file's text, by the extension of its name: `.json`, the
 * `DiagnosticCatalogue` document (`reference-data/diagnostics-catalogue.json` is one), or
 * `.csv`, the spreadsheet layout of `catalogue-csv.ts`. Either is checked by the same
 * rules (`catalogue-rules.ts`); answers the catalogue or every problem found.
 */
export function readCatalogueFile(text: string, fileName: string): CatalogueCheck {
  const kind = extname(fileName).toLowerCase();
  if (kind !== '.json' && kind !== '.csv') {
    return { problems: [{ where: fileName, message: `must be a .json or a .csv file (the extension tells how to read it)` }] };
  }
  if (text.length > MAX_CATALOGUE_FILE_CHARS) {
    return { problems: [{ where: fileName, message: `is larger than ${MAX_CATALOGUE_FILE_CHARS} characters` }] };
  }
  return kind === '.json' ? readCatalogueJson(text) : readCatalogueCsv(text);
}

export function readCatalogueJson(text: string): CatalogueCheck {
  let document: unknown;
  try {
    document = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { problems: [{ where: 'JSON', message: `cannot be parsed: ${(error as Error).message}` }] };
  }
  return checkCatalogue(document);
}
