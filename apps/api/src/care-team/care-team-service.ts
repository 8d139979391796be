import type { Environment } from '../auth/principal.js';
import { EnvironmentDocuments, type DocumentKind } from '../db/environment-documents.js';
import { openSlots, type Slot, type SlotRequest } from './availability.js';
import type { CareTeam, CareTeamOrigin, Provider, Questionnaire } from './care-team.js';
import { readCareTeamFile } from './care-team-files.js';
import { CareTeamIndex } from './care-team-index.js';
import type { CareTeamRepository } from './care-team-repository.js';

/** What an import stored. */
export interface CareTeamCounts {
  programs: number;
  questionnaires: number;
  providers: number;
}

/** The care team as a document of the environment (db/environment-documents.ts). */
const CARE_TEAM: DocumentKind<CareTeam, CareTeamIndex> = {
  noun: 'care team',
  sampleLabel: (file) => `the sandbox's care team (${file})`,
  empty: { programs: [], questionnaires: [], providers: [] },
  read: (text, fileName) => {
    const read = readCareTeamFile(text, fileName);
    return read.problems ? { problems: read.problems } : { document: read.careTeam };
  },
  index: (careTeam) => new CareTeamIndex(careTeam),
};

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
export class CareTeams extends EnvironmentDocuments<CareTeam, CareTeamIndex> {
  constructor(
    repository: CareTeamRepository,
    /** The sandbox's care team until one is imported (a .json file). */
    sampleFile: string,
    cacheMs = 5_000,
  ) {
    super(CARE_TEAM, repository, sampleFile, cacheMs);
  }

  /** The environment's care team (frozen: shared until the next import). */
  async of(environment: Environment): Promise<CareTeam> {
    return (await this.index(environment)).careTeam;
  }

  /** The open slots of providers (availability.ts): what consults book, offered through the service so that other areas receive it by their constructor. */
  openSlots(request: SlotRequest): Slot[] {
    return openSlots(request);
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
   * InvalidDocumentError with every problem, and nothing is stored.
   */
  async import(environment: Environment, text: string, fileName: string): Promise<CareTeamCounts> {
    const careTeam = await this.replace(environment, text, fileName);
    return { programs: careTeam.programs.length, questionnaires: careTeam.questionnaires.length, providers: careTeam.providers.length };
  }
}
