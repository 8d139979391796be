import type { Environment } from '../auth/principal.js';

/** The diagnostics catalogue of one environment, replaced whole by each import. */
export interface DiagnosticCataloguesTable {
  environment: Environment;
  /** The catalogue, a `DiagnosticCatalogue` JSON document, checked by `catalogue-rules.ts` before it was stored. */
  catalogue: string;
  /** The base name of the file it was imported from. */
  source: string;
  imported_at: string;
}

declare module '../db/database.js' {
  interface Database {
    diagnostic_catalogues: DiagnosticCataloguesTable;
  }
}
