import type { Environment } from '../auth/principal.js';
import { EnvironmentDocuments, type DocumentKind } from '../db/environment-documents.js';
import type { CatalogueKit, CatalogueOrigin, CatalogueTest, DiagnosticCatalogue } from './catalogue.js';
import { readCatalogueFile } from './catalogue-files.js';
import { CatalogueIndex, type CatalogueRequest, type CatalogueSelectionResult } from './catalogue-index.js';
import type { CatalogueRepository } from './catalogue-repository.js';

/** What an import stored. */
export interface CatalogueCounts {
  tests: number;
  panels: number;
  analytes: number;
  kits: number;
}

/** The catalogue as a document of the environment (db/environment-documents.ts). */
const CATALOGUE: DocumentKind<DiagnosticCatalogue, CatalogueIndex> = {
  noun: 'diagnostics catalogue',
  sampleLabel: (file) => `the sandbox's diagnostics catalogue (DIAGNOSTICS_SANDBOX_CATALOGUE_FILE, ${file})`,
  empty: { tests: [], kits: [] },
  read: (text, fileName) => {
    const read = readCatalogueFile(text, fileName);
    return read.problems ? { problems: read.problems } : { document: read.catalogue };
  },
  index: (catalogue) => new CatalogueIndex(catalogue),
};

/**
 * The diagnostics catalogue of each environment: the imported one (`pnpm admin
 * diagnostics-catalogue import`), else, in the sandbox, the sample file the operator
 * configures (DIAGNOSTICS_SANDBOX_CATALOGUE_FILE, by default the shipped
 * `reference-data/diagnostics-catalogue.json`, read and checked once, when first needed),
 * and in production an empty catalogue.
 *
 * Each environment's catalogue is kept in memory for `cacheMs`: an import through this
 * instance is seen at once, one by another process sharing the database (the admin
 * command, another server) within `cacheMs`.
 */
export class DiagnosticCatalogues extends EnvironmentDocuments<DiagnosticCatalogue, CatalogueIndex> {
  constructor(
    repository: CatalogueRepository,
    /** The sandbox's catalogue until one is imported (a .json or .csv file). */
    sampleFile: string,
    cacheMs = 5_000,
  ) {
    super(CATALOGUE, repository, sampleFile, cacheMs);
  }

  /** The environment's catalogue (frozen: shared until the next import). */
  async of(environment: Environment): Promise<DiagnosticCatalogue> {
    return (await this.index(environment)).catalogue;
  }

  async test(environment: Environment, id: string): Promise<CatalogueTest | undefined> {
    return (await this.index(environment)).test(id);
  }

  async kit(environment: Environment, id: string): Promise<CatalogueKit | undefined> {
    return (await this.index(environment)).kit(id);
  }

  /** The kits that serve the test, its default first (none for an unknown test). */
  async kitsOfTest(environment: Environment, testId: string): Promise<CatalogueKit[]> {
    return (await this.index(environment)).kitsOfTest(testId);
  }

  /** The tests the kit serves (none for an unknown kit). */
  async testsOfKit(environment: Environment, kitId: string): Promise<CatalogueTest[]> {
    return (await this.index(environment)).testsOfKit(kitId);
  }

  /** The test, kit and panels an order asks for, or its problems keyed by the order's fields (`CatalogueIndex.select`). */
  async select(environment: Environment, request: CatalogueRequest): Promise<CatalogueSelectionResult> {
    return (await this.index(environment)).select(request);
  }

  /**
   * Reads a catalogue from a file's text (`.json` or `.csv`, by `fileName`), checks it, and
   * stores it as the environment's, replacing the one it had. A catalogue that breaks a
   * rule throws InvalidDocumentError with every problem, and nothing is stored.
   */
  async import(environment: Environment, text: string, fileName: string): Promise<CatalogueCounts> {
    const catalogue = await this.replace(environment, text, fileName);
    const panels = catalogue.tests.flatMap((t) => t.panels);
    return { tests: catalogue.tests.length, panels: panels.length, analytes: panels.reduce((n, p) => n + p.analytes.length, 0), kits: catalogue.kits.length };
  }
}
