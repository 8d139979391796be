import type { Environment } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { DocumentStore, StoredDocument } from '../db/environment-documents.js';

/** The catalogue of each environment in `diagnostic_catalogues` (its JSON in `catalogue`). */
export class CatalogueRepository implements DocumentStore {
  constructor(private readonly db: Db) {}

  /** The environment's imported catalogue, undefined when none was imported. */
  async find(environment: Environment): Promise<StoredDocument | undefined> {
    const row = await this.db.selectFrom('diagnostic_catalogues').selectAll().where('environment', '=', environment).executeTakeFirst();
    return row && { environment: row.environment, document: row.catalogue, source: row.source, imported_at: row.imported_at };
  }

  /** Stores the environment's catalogue, replacing the one it had. */
  async store({ environment, document, source, imported_at }: StoredDocument): Promise<void> {
    await this.db
      .insertInto('diagnostic_catalogues')
      .values({ environment, catalogue: document, source, imported_at })
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
