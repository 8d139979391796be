import type { Kysely, Migration } from 'kysely';

/**
 * The pharmacy reference data the operator loads (`pnpm admin reference-data import`):
 * pharmacy locations with their coordinates, the states each is licensed to ship to, the
 * plan networks (BIN, PCN, group) it is in, what the specialty ones dispense, units on hand
 * by NDC, and the ZIP code centroids that place an address. Shared by every customer; each
 * import replaces a table whole. Customers gain the coverage lookup flag (off until the
 * operator enables it: `pnpm admin coverage enable`).
 */
export const referenceData: Migration = {
  async up(db: Kysely<any>) {
    let locations = db.schema.createTable('pharmacy_locations').addColumn('id', 'text', (c) => c.primaryKey());
    for (const column of ['pharmacy', 'npi', 'ncpdpid', 'address_to_street1', 'address_to_city', 'address_to_state', 'address_to_zip', 'address_to_country']) {
      locations = locations.addColumn(column, 'text', (c) => c.notNull());
    }
    for (const column of ['address_to_street2', 'address_to_phone', 'address_to_fax', 'specialty_categories']) {
      locations = locations.addColumn(column, 'text');
    }
    await locations
      .addColumn('latitude', 'float8', (c) => c.notNull())
      .addColumn('longitude', 'float8', (c) => c.notNull())
      .addColumn('same_day', 'integer', (c) => c.notNull())
      .addColumn('shipping_days', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('pharmacy_locations_ncpdpid').on('pharmacy_locations').column('ncpdpid').unique().execute();
    await db.schema.createIndex('pharmacy_locations_zip').on('pharmacy_locations').column('address_to_zip').execute();

    await db.schema
      .createTable('pharmacy_location_licenses')
      .addColumn('location_id', 'text', (c) => c.notNull().references('pharmacy_locations.id'))
      .addColumn('state', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('pharmacy_location_licenses_pk', ['location_id', 'state'])
      .execute();

    await db.schema
      .createTable('pharmacy_location_networks')
      .addColumn('location_id', 'text', (c) => c.notNull().references('pharmacy_locations.id'))
      .addColumn('bin', 'text', (c) => c.notNull())
      .addColumn('pcn', 'text')
      .addColumn('group_number', 'text')
      .execute();
    await db.schema.createIndex('pharmacy_location_networks_location').on('pharmacy_location_networks').column('location_id').execute();

    await db.schema
      .createTable('pharmacy_inventory')
      .addColumn('location_id', 'text', (c) => c.notNull().references('pharmacy_locations.id'))
      .addColumn('ndc', 'text', (c) => c.notNull())
      .addColumn('medication_name', 'text', (c) => c.notNull())
      .addColumn('quantity_on_hand', 'integer')
      .addPrimaryKeyConstraint('pharmacy_inventory_pk', ['location_id', 'ndc'])
      .execute();
    await db.schema.createIndex('pharmacy_inventory_ndc').on('pharmacy_inventory').column('ndc').execute();

    await db.schema
      .createTable('zip_centroids')
      .addColumn('zip', 'text', (c) => c.primaryKey())
      .addColumn('city', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('latitude', 'float8', (c) => c.notNull())
      .addColumn('longitude', 'float8', (c) => c.notNull())
      .execute();

    await db.schema.alterTable('customers').addColumn('coverage_enabled', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
