import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Environment } from '../auth/principal.js';
import { nowIso } from '../tokens.js';

/** A document of one environment as its table stores it: the JSON text, the file it came from, when. */
export interface StoredDocument {
  environment: Environment;
  document: string;
  source: string;
  imported_at: string;
}

/** Where an area keeps its documents (its repository, over its own table). */
export interface DocumentStore {
  find(environment: Environment): Promise<StoredDocument | undefined>;
  store(document: StoredDocument): Promise<void>;
}

/** Where an environment's document came from, and when (null: never imported). */
export interface DocumentOrigin {
  environment: Environment;
  /** The imported file's name, `shipped sample` or `none`. */
  source: string;
  imported_at: string | null;
}

/** A problem of a document, and where it is (`tests[2].panels[0].code`). */
export interface DocumentProblem {
  where: string;
  message: string;
}

/** How one kind of document is read, checked and looked up (the area's rules). */
export interface DocumentKind<Doc, Index> {
  /** Its name in messages: `diagnostics catalogue`, `care team`. */
  noun: string;
  /** How messages name the sandbox's sample file. */
  sampleLabel(file: string): string;
  /** What an environment without an import and without a sample has. */
  empty: Doc;
  /** Reads and checks a file's text (its kind told by `fileName`): the document, or every problem. */
  read(text: string, fileName: string): { document: Doc; problems?: undefined } | { document?: undefined; problems: DocumentProblem[] };
  /** The document with its lookups (built once per read). */
  index(document: Doc): Index;
}

/** The source of the sandbox's document until one is imported. */
export const SHIPPED_SAMPLE = 'shipped sample';
/** The source of production's (empty) document until one is imported. */
export const NOTHING_IMPORTED = 'none';

export function describeProblem({ where, message }: DocumentProblem): string {
  return `${where}: ${message}`;
}

/** A document that broke its kind's rules: nothing was stored. `problems` are described one per line. */
export class InvalidDocumentError extends Error {
  readonly problems: string[];

  constructor(noun: string, problems: readonly DocumentProblem[]) {
    const described = problems.map(describeProblem);
    const shown = described.slice(0, 20).join('\n  ');
    const more = described.length > 20 ? `\n  ...and ${described.length - 20} more` : '';
    super(`the ${noun} has ${described.length} problem(s):\n  ${shown}${more}`);
    this.name = 'InvalidDocumentError';
    this.problems = described;
  }
}

interface Loaded<Index> {
  index: Index;
  origin: DocumentOrigin;
}

/**
 * Reference documents of each environment that the operator imports whole (the
 * diagnostics catalogue, the care team): the imported one; else, in the sandbox, the
 * configured sample file (read and checked once, when first needed; a failure is not
 * kept, so fixing the file is enough); else an empty one. Each environment's document is
 * kept in memory for `cacheMs`: an import through this instance is seen at once, one by
 * another process sharing the database (the admin command, another server) within `cacheMs`.
 */
export class EnvironmentDocuments<Doc, Index> {
  private readonly loaded = new Map<Environment, { loading: Promise<Loaded<Index>>; until: number }>();
  private sample: Promise<Index> | undefined;

  constructor(
    private readonly kind: DocumentKind<Doc, Index>,
    private readonly store: DocumentStore,
    private readonly sampleFile: string,
    private readonly cacheMs = 5_000,
  ) {}

  async index(environment: Environment): Promise<Index> {
    return (await this.load(environment)).index;
  }

  async origin(environment: Environment): Promise<DocumentOrigin> {
    return (await this.load(environment)).origin;
  }

  /**
   * Reads a document from a file's text, checks it, and stores it as the environment's,
   * replacing the one it had; answers it. A document with problems throws
   * InvalidDocumentError with every problem, and nothing is stored.
   */
  protected async replace(environment: Environment, text: string, fileName: string): Promise<Doc> {
    const read = this.kind.read(text, fileName);
    if (read.problems) throw new InvalidDocumentError(this.kind.noun, read.problems);
    const origin = { environment, source: basename(fileName), imported_at: nowIso() };
    await this.store.store({ ...origin, document: JSON.stringify(read.document) });
    this.loaded.set(environment, { loading: Promise.resolve({ index: this.kind.index(read.document), origin }), until: Date.now() + this.cacheMs });
    return read.document;
  }

  private load(environment: Environment): Promise<Loaded<Index>> {
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

  private async read(environment: Environment): Promise<Loaded<Index>> {
    const row = await this.store.find(environment);
    if (row) {
      return { index: this.kind.index(JSON.parse(row.document) as Doc), origin: { environment, source: row.source, imported_at: row.imported_at } };
    }
    if (environment === 'sandbox') return { index: await this.sampleIndex(), origin: { environment, source: SHIPPED_SAMPLE, imported_at: null } };
    return { index: this.kind.index(this.kind.empty), origin: { environment, source: NOTHING_IMPORTED, imported_at: null } };
  }

  private sampleIndex(): Promise<Index> {
    this.sample ??= Promise.resolve()
      .then(() => this.readSample())
      .catch((error: unknown) => {
        this.sample = undefined;
        throw error;
      });
    return this.sample;
  }

  private readSample(): Index {
    const what = this.kind.sampleLabel(this.sampleFile);
    let text: string;
    try {
      text = readFileSync(this.sampleFile, 'utf8');
    } catch (error) {
      throw new Error(`${what} cannot be read: ${(error as Error).message}`);
    }
    const read = this.kind.read(text, this.sampleFile);
    if (read.problems) throw new Error(`${what} is not a valid ${this.kind.noun}:\n  ${read.problems.map(describeProblem).join('\n  ')}`);
    return this.kind.index(read.document);
  }
}
