import type { Db } from '../db/database.js';
import type { Transactor } from '../db/transactor.js';
import type { PharmacyInventoryTable, PharmacyLocationLicensesTable, PharmacyLocationNetworksTable, PharmacyLocationsTable, ZipCentroidsTable } from './reference-data-tables.js';

/** Every table of the reference data, as read at once. */
export interface ReferenceRows {
  locations: PharmacyLocationsTable[];
  licenses: PharmacyLocationLicensesTable[];
  networks: PharmacyLocationNetworksTable[];
  inventory: PharmacyInventoryTable[];
  zips: ZipCentroidsTable[];
}

/** Inserts in chunks small enough for either database's limit on bound values. */
async function insertAll<T extends keyof ReferenceTables>(trx: Db, table: T, rows: readonly ReferenceTables[T][]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await trx.insertInto(table).values(rows.slice(i, i + 200) as never).execute();
  }
}

interface ReferenceTables {
  pharmacy_locations: PharmacyLocationsTable;
  pharmacy_location_licenses: PharmacyLocationLicensesTable;
  pharmacy_location_networks: PharmacyLocationNetworksTable;
  pharmacy_inventory: PharmacyInventoryTable;
  zip_centroids: ZipCentroidsTable;
}

/** The reference data tables (migration 020): read whole, replaced whole per kind. */
export class ReferenceDataRepository {
  constructor(
    private readonly db: Db,
    private readonly transactor: Transactor,
  ) {}

  async readAll(): Promise<ReferenceRows> {
    const [locations, licenses, networks, inventory, zips] = await Promise.all([
      this.db.selectFrom('pharmacy_locations').selectAll().orderBy('id').execute(),
      this.db.selectFrom('pharmacy_location_licenses').selectAll().execute(),
      this.db.selectFrom('pharmacy_location_networks').selectAll().execute(),
      this.db.selectFrom('pharmacy_inventory').selectAll().execute(),
      this.db.selectFrom('zip_centroids').selectAll().execute(),
    ]);
    return { locations, licenses, networks, inventory, zips };
  }

  async counts(): Promise<{ locations: number; zips: number }> {
    const count = async (table: 'pharmacy_locations' | 'zip_centroids') =>
      Number((await this.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    return { locations: await count('pharmacy_locations'), zips: await count('zip_centroids') };
  }

  /**
   * Replaces the locations with their licenses and networks, and, when `inventory` is given,
   * the inventory; otherwise inventory rows of locations that are gone are dropped.
   */
  replaceLocations(
    locations: PharmacyLocationsTable[],
    licenses: PharmacyLocationLicensesTable[],
    networks: PharmacyLocationNetworksTable[],
    inventory?: PharmacyInventoryTable[],
  ): Promise<void> {
    return this.transactor.run(async (trx) => {
      const ids = locations.map((l) => l.id);
      if (inventory) await trx.deleteFrom('pharmacy_inventory').execute();
      else if (ids.length) await trx.deleteFrom('pharmacy_inventory').where('location_id', 'not in', ids).execute();
      else await trx.deleteFrom('pharmacy_inventory').execute();
      await trx.deleteFrom('pharmacy_location_licenses').execute();
      await trx.deleteFrom('pharmacy_location_networks').execute();
      await trx.deleteFrom('pharmacy_locations').where('id', 'not in', ids.length ? ids : ['']).execute();
      // Kept ids are updated in place (their inventory stays), new ones inserted.
      const kept = new Set((await trx.selectFrom('pharmacy_locations').select('id').execute()).map((r) => r.id));
      for (const location of locations.filter((l) => kept.has(l.id))) {
        await trx.updateTable('pharmacy_locations').set(location).where('id', '=', location.id).execute();
      }
      await insertAll(trx, 'pharmacy_locations', locations.filter((l) => !kept.has(l.id)));
      await insertAll(trx, 'pharmacy_location_licenses', licenses);
      await insertAll(trx, 'pharmacy_location_networks', networks);
      if (inventory) await insertAll(trx, 'pharmacy_inventory', inventory);
    });
  }

  replaceInventory(inventory: PharmacyInventoryTable[]): Promise<void> {
    return this.transactor.run(async (trx) => {
      await trx.deleteFrom('pharmacy_inventory').execute();
      await insertAll(trx, 'pharmacy_inventory', inventory);
    });
  }

  replaceZipCentroids(zips: ZipCentroidsTable[]): Promise<void> {
    return this.transactor.run(async (trx) => {
      await trx.deleteFrom('zip_centroids').execute();
      await insertAll(trx, 'zip_centroids', zips);
    });
  }
}
