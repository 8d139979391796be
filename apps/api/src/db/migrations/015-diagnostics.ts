import type { Kysely, Migration } from 'kysely';

/**
 * At-home diagnostics: the catalogue of tests, panels and kits of each environment (one
 * JSON document per environment, replaced whole by an import), the lab orders with what
 * they were ordered with (snapshots of the test, kit and patient), their lifecycle's state,
 * and the panels each order measures, by code and lower-cased name (what the listing's
 * `panels` filter matches).
 * Insurance and results are sealed.
 */
export const diagnostics: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('diagnostic_catalogues')
      .addColumn('environment', 'text', (c) => c.primaryKey())
      .addColumn('catalogue', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('imported_at', 'text', (c) => c.notNull())
      .execute();

    let orders = db.schema
      .createTable('diagnostic_orders')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'));
    for (const column of ['environment', 'status', 'test_id', 'test_name', 'kit_id', 'kit_sku', 'panels', 'patient', 'media_ids', 'created_at', 'updated_at']) {
      orders = orders.addColumn(column, 'text', (c) => c.notNull());
    }
    for (const column of [
      'patient_token', 'address', 'physician', 'insurance_encrypted', 'insurance_token', 'kit_serial',
      'shipment_carrier', 'shipment_tracking_number', 'return_carrier', 'return_tracking_number',
      'accession_id', 'specimen', 'custom_data_1', 'custom_data_2', 'custom_data_3',
      'rejection_reason', 'rejection_panel_name', 'rejected_at', 'results_encrypted', 'resulted_at',
    ]) {
      orders = orders.addColumn(column, 'text');
    }
    await orders
      .addColumn('registered', 'integer', (c) => c.notNull())
      .addColumn('rejection_fixable', 'integer')
      .execute();
    await db.schema.createIndex('diagnostic_orders_owner_created').on('diagnostic_orders').columns(['customer_id', 'environment', 'created_at', 'id']).execute();
    // A physical kit serves one order, whoever's.
    await db.schema.createIndex('diagnostic_orders_kit_serial').unique().on('diagnostic_orders').column('kit_serial').execute();

    await db.schema
      .createTable('diagnostic_order_panels')
      .addColumn('order_id', 'text', (c) => c.notNull().references('diagnostic_orders.id'))
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('diagnostic_order_panels_pk', ['order_id', 'code'])
      .execute();
    await db.schema.createIndex('diagnostic_order_panels_code').on('diagnostic_order_panels').columns(['code', 'order_id']).execute();
    await db.schema.createIndex('diagnostic_order_panels_name').on('diagnostic_order_panels').columns(['name_key', 'order_id']).execute();
  },
};
