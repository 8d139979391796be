import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Environment } from '../auth/principal.js';
import { nowIso } from '../tokens.js';
import type { CatalogueKit, CatalogueOrigin, CatalogueTest, DiagnosticCatalogue } from './catalogue.js';
import { readCatalogueFile } from './catalogue-files.js';
import { CatalogueIndex, type CatalogueRequest, type CatalogueSelectionResult } from './catalogue-index.js';
import type { CatalogueRepository } from './catalogue-repository.js';
import { describeProblem, InvalidCatalogueError } from './catalogue-rules.js';

/** What an import stored. */
export interface CatalogueCounts {
  tests: number;
  panels: number;
  analytes: number;
  kits: number;
}

/** An environment's catalogue as last read: its lookups and where it came from. */
interface Loaded {
  index: CatalogueIndex;
  origin: CatalogueOrigin;
}

/** The source of the sandbox's catalogue until one is imported. */
export const SHIPPED_SAMPLE = 'shipped sample';
/** The source of production's (empty) catalogue until one is imported. */
export const NOTHING_IMPORTED = 'none';

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
export class DiagnosticCatalogues {
  private readonly loaded = new Map<Environment, { loading: Promise<Loaded>; until: number }>();
  private sample: Promise<CatalogueIndex> | undefined;

  constructor(
    private readonly repository: CatalogueRepository,
    /** The sandbox's catalogue until one is imported (a .json or .csv file). */
    private readonly sampleFile: string,
    private readonly cacheMs = 5_000,
  ) {}

  /** The environment's catalogue (frozen: shared until the next import). */
  async of(environment: Environment): Promise<DiagnosticCatalogue> {
    return (await this.index(environment)).catalogue;
  }

  /** Where the environment's catalogue came from, and when. */
  async origin(environment: Environment): Promise<CatalogueOrigin> {
    return (await this.load(environment)).origin;
  }

  /** The environment's catalogue with its lookups, for callers that look up several things at once. */
  async index(environment: Environment): Promise<CatalogueIndex> {
    return (await this.load(environment)).index;
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
   * rule throws InvalidCatalogueError with every problem, and nothing is stored.
   */
  async import(environment: Environment, text: string, fileName: string): Promise<CatalogueCounts> {
    const read = readCatalogueFile(text, fileName);
    if (read.problems) throw new InvalidCatalogueError(read.problems);
    const { catalogue } = read;
    const origin: CatalogueOrigin = { environment, source: basename(fileName), imported_at: nowIso() };
    await this.repository.store({ environment, catalogue: JSON.stringify(catalogue), source: origin.source, imported_at: origin.imported_at! });
    this.loaded.set(environment, { loading: Promise.resolve({ index: new CatalogueIndex(catalogue), origin }), until: Date.now() + this.cacheMs });
    const panels = catalogue.tests.flatMap((t) => t.panels);
    return { tests: catalogue.tests.length, panels: panels.length, analytes: panels.reduce((n, p) => n + p.analytes.length, 0), kits: catalogue.kits.length };
  }

  private load(environment: Environment): Promise<Loaded> {
    const cached = this.loaded.get(environment);
    if (cached && cached.until > Date.now()) return cached.loading;
    const loading = this.read(environment);
    const entry = { loading, until: Date.now() + this.cacheMs };
    this.loaded.set(environment, entry);
    // A failed read is not kept: the next call tries again.
    loading.catch(() => {
      if (this.loaded.get(environment) === entry) this.loaded.delete(environment);
    });
    return loading;
  }

  private async read(environment: Environment): Promise<Loaded> {
    const row = await this.repository.find(environment);
    if (row) {
      return {
        index: new CatalogueIndex(JSON.parse(row.catalogue) as DiagnosticCatalogue),
        origin: { environment, source: row.source, imported_at: row.imported_at },
      };
    }
    if (environment === 'sandbox') return { index: await this.sampleIndex(), origin: { environment, source: SHIPPED_SAMPLE, imported_at: null } };
    return { index: new CatalogueIndex({ tests: [], kits: [] }), origin: { environment, source: NOTHING_IMPORTED, imported_at: null } };
  }

  /** The sample file, read and checked once (a failure is not kept: the next call reads it again). */
  private sampleIndex(): Promise<CatalogueIndex> {
    this.sample ??= Promise.resolve()
      .then(() => this.readSample())
      .catch((error: unknown) => {
        this.sample = undefined;
        throw error;
      });
    return this.sample;
  }

  private readSample(): CatalogueIndex {
    const what = `the sandbox's diagnostics catalogue (DIAGNOSTICS_SANDBOX_CATALOGUE_FILE, ${this.sampleFile})`;
    let text: string;
    try {
      text = readFileSync(this.sampleFile, 'utf8');
    } catch (error) {
      throw new Error(`${what} cannot be read: ${(error as Error).message}`);
    }
    const read = readCatalogueFile(text, this.sampleFile);
    if (read.problems) throw new Error(`${what} is not a valid catalogue:\n  ${read.problems.map(describeProblem).join('\n  ')}`);
    return new CatalogueIndex(read.catalogue);
  }
}
