import type { Environment } from '../auth/principal.js';

/** The care team of one environment, replaced whole by each import. */
export interface CareTeamsTable {
  environment: Environment;
  /** The care team, a `CareTeam` JSON document, checked by `care-team-rules.ts` before it was stored. */
  care_team: string;
  /** The base name of the file it was imported from. */
  source: string;
  imported_at: string;
}

declare module '../db/database.js' {
  interface Database {
    care_teams: CareTeamsTable;
  }
}
