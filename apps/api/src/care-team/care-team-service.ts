import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Environment } from '../auth/principal.js';
import { nowIso } from '../tokens.js';
import { openSlots, type Slot, type SlotRequest } from './availability.js';
import type { CareTeam, CareTeamOrigin, Provider, Questionnaire } from './care-team.js';
import { readCareTeamFile } from './care-team-files.js';
import { CareTeamIndex } from './care-team-index.js';
import type { CareTeamRepository } from './care-team-repository.js';
import { describeProblem, InvalidCareTeamError } from './care-team-rules.js';

/** What an import stored. */
export interface CareTeamCounts {
  programs: number;
  questionnaires: number;
  providers: number;
}

/** An environment's care team as last read: its lookups and where it came from. */
interface Loaded {
  index: CareTeamIndex;
  origin: CareTeamOrigin;
}

/** The source of the sandbox's care team until one is imported. */
export const SHIPPED_SAMPLE = 'shipped sample';
/** The source of production's (empty) care team until one is imported. */
export const NOTHING_IMPORTED = 'none';

/**
 * The care team of each environment: the imported one (`pnpm admin care-team import`),
 * else, in the sandbox, the sample file the operator configures (by default the shipped
 * `reference-data/care-team.json`, read and checked once, when first needed), and in
 * production an empty care team (no program, no provider: the schedule is empty).
 *
 * Each environment's care team is kept in memory for `cacheMs`: an import through this
 * instance is seen at once, one by another process sharing the database (the admin
 * command, another server) within `cacheMs`.
 */
export class CareTeams {
  private readonly loaded = new Map<Environment, { loading: Promise<Loaded>; until: number }>();
  private sample: Promise<CareTeamIndex> | undefined;

  constructor(
    private readonly repository: CareTeamRepository,
    /** The sandbox's care team until one is imported (a .json file). */
    private readonly sampleFile: string,
    private readonly cacheMs = 5_000,
  ) {}

  /** The environment's care team (frozen: shared until the next import). */
  async of(environment: Environment): Promise<CareTeam> {
    return (await this.index(environment)).careTeam;
  }

  /** Where the environment's care team came from, and when. */
  async origin(environment: Environment): Promise<CareTeamOrigin> {
    return (await this.load(environment)).origin;
  }

  /** The environment's care team with its lookups, for callers that look up several things at once. */
  /** The open slots of providers (availability.ts): what consults book, offered through the service so that other areas receive it by their constructor. */
  openSlots(request: SlotRequest): Slot[] {
    return openSlots(request);
  }

  async index(environment: Environment): Promise<CareTeamIndex> {
    return (await this.load(environment)).index;
  }

  async questionnaire(environment: Environment, id: string): Promise<Questionnaire | undefined> {
    return (await this.index(environment)).questionnaire(id);
  }

  /** The providers of the questionnaire's program licensed in the state (none for an unknown questionnaire). */
  async providersFor(environment: Environment, questionnaireId: string, state: string): Promise<Provider[]> {
    return (await this.index(environment)).providersFor(questionnaireId, state);
  }

  /**
   * Reads a care team from a file's text (`.json`, by `fileName`), checks it, and stores it
   * as the environment's, replacing the one it had. A care team that breaks a rule throws
   * InvalidCareTeamError with every problem, and nothing is stored.
   */
  async import(environment: Environment, text: string, fileName: string): Promise<CareTeamCounts> {
    const read = readCareTeamFile(text, fileName);
    if (read.problems) throw new InvalidCareTeamError(read.problems);
    const { careTeam } = read;
    const origin: CareTeamOrigin = { environment, source: basename(fileName), imported_at: nowIso() };
    await this.repository.store({ environment, care_team: JSON.stringify(careTeam), source: origin.source, imported_at: origin.imported_at! });
    this.loaded.set(environment, { loading: Promise.resolve({ index: new CareTeamIndex(careTeam), origin }), until: Date.now() + this.cacheMs });
    return { programs: careTeam.programs.length, questionnaires: careTeam.questionnaires.length, providers: careTeam.providers.length };
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
        index: new CareTeamIndex(JSON.parse(row.care_team) as CareTeam),
        origin: { environment, source: row.source, imported_at: row.imported_at },
      };
    }
    if (environment === 'sandbox') return { index: await this.sampleIndex(), origin: { environment, source: SHIPPED_SAMPLE, imported_at: null } };
    return { index: new CareTeamIndex({ programs: [], questionnaires: [], providers: [] }), origin: { environment, source: NOTHING_IMPORTED, imported_at: null } };
  }

  /** The sample file, read and checked once (a failure is not kept: the next call reads it again). */
  private sampleIndex(): Promise<CareTeamIndex> {
    this.sample ??= Promise.resolve()
      .then(() => this.readSample())
      .catch((error: unknown) => {
        this.sample = undefined;
        throw error;
      });
    return this.sample;
  }

  private readSample(): CareTeamIndex {
    const what = `the sandbox's care team (${this.sampleFile})`;
    let text: string;
    try {
      text = readFileSync(this.sampleFile, 'utf8');
    } catch (error) {
      throw new Error(`${what} cannot be read: ${(error as Error).message}`);
    }
    const read = readCareTeamFile(text, this.sampleFile);
    if (read.problems) throw new Error(`${what} is not a valid care team:\n  ${read.problems.map(describeProblem).join('\n  ')}`);
    return new CareTeamIndex(read.careTeam);
  }
}
