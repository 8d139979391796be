import type { Environment } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { DiagnosticCataloguesTable } from './catalogue-tables.js';

export class CatalogueRepository {
  constructor(private readonly db: Db) {}

  /** The environment's imported catalogue, undefined when none was imported. */
  async find(environment: Environment): Promise<DiagnosticCataloguesTable | undefined> {
    return this.db.selectFrom('diagnostic_catalogues').selectAll().where('environment', '=', environment).executeTakeFirst();
  }

  /** Stores the environment's catalogue, replacing the one it had. */
  async store(row: DiagnosticCataloguesTable): Promise<void> {
    await this.db
      .insertInto('diagnostic_catalogues')
      .values(row)
      .onConflict((oc) =>
        oc.column('environment').doUpdateSet((eb) => ({
          catalogue: eb.ref('excluded.catalogue'),
          source: eb.ref('excluded.source'),
          imported_at: eb.ref('excluded.imported_at'),
        })),
      )
      .execute();
  }
}
