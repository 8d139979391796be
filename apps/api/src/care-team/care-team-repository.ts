import type { Environment } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { DocumentStore, StoredDocument } from '../db/environment-documents.js';

/** The care team of each environment in `care_teams` (its JSON in `care_team`). */
export class CareTeamRepository implements DocumentStore {
  constructor(private readonly db: Db) {}

  /** The environment's imported care team, undefined when none was imported. */
  async find(environment: Environment): Promise<StoredDocument | undefined> {
    const row = await this.db.selectFrom('care_teams').selectAll().where('environment', '=', environment).executeTakeFirst();
    return row && { environment: row.environment, document: row.care_team, source: row.source, imported_at: row.imported_at };
  }

  /** Stores the environment's care team, replacing the one it had. */
  async store({ environment, document, source, imported_at }: StoredDocument): Promise<void> {
    await this.db
      .insertInto('care_teams')
      .values({ environment, care_team: document, source, imported_at })
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
