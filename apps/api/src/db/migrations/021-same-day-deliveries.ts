import type { Kysely, Migration } from 'kysely';

/**
 * Same-day delivery orders (`/v1/same_day_delivery`): one row per order, what was sent at
 * creation as JSON (`prescription_tokens`, `insurance_tokens`, `shipping_address`, the
 * resolved `external_location`), and the courier's progress (status, courier, tracking,
 * ETA). Listed newest first, optionally of one status.
 */
export const sameDayDeliveries: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('same_day_deliveries')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('patient_token', 'text', (c) => c.notNull().references('patients.token'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_reason', 'text')
      .addColumn('prescription_tokens', 'text', (c) => c.notNull())
      .addColumn('insurance_tokens', 'text', (c) => c.notNull())
      .addColumn('shipping_address', 'text', (c) => c.notNull())
      .addColumn('external_location', 'text', (c) => c.notNull())
      .addColumn('delivery_instruction', 'text')
      .addColumn('metadata', 'text')
      .addColumn('courier', 'text')
      .addColumn('tracking_url', 'text')
      .addColumn('eta', 'text')
      .addColumn('delivered_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // The list: this customer's orders newest first, optionally of one status.
    await db.schema
      .createIndex('same_day_deliveries_list')
      .on('same_day_deliveries')
      .columns(['customer_id', 'environment', 'created_at', 'token'])
      .execute();
    await db.schema
      .createIndex('same_day_deliveries_status')
      .on('same_day_deliveries')
      .columns(['customer_id', 'environment', 'status', 'created_at', 'token'])
      .execute();
  },
};
