import type { Environment } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { CareTeamsTable } from './care-team-tables.js';

export class CareTeamRepository {
  constructor(private readonly db: Db) {}

  /** The environment's imported care team, undefined when none was imported. */
  async find(environment: Environment): Promise<CareTeamsTable | undefined> {
    return this.db.selectFrom('care_teams').selectAll().where('environment', '=', environment).executeTakeFirst();
  }

  /** Stores the environment's care team, replacing the one it had. */
  async store(row: CareTeamsTable): Promise<void> {
    await this.db
      .insertInto('care_teams')
      .values(row)
      .onConflict((oc) =>
        oc.column('environment').doUpdateSet((eb) => ({
          care_team: eb.ref('excluded.care_team'),
          source: eb.ref('excluded.source'),
          imported_at: eb.ref('excluded.imported_at'),
        })),
      )
      .execute();
  }
}
