import type { Kysely, Migration } from 'kysely';

/** Fill requests, orders, insurances and copay requests. */
export const fillRequests: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('insurances')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('patient_token', 'text', (c) => c.notNull().references('patients.token'))
      .addColumn('cardholder_id', 'text', (c) => c.notNull())
      .addColumn('rx_bin', 'text', (c) => c.notNull())
      .addColumn('rx_group', 'text')
      .addColumn('pcn', 'text')
      .addColumn('phone_number', 'text')
      .addColumn('insurance_card_image_url', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('insurances_patient').on('insurances').columns(['patient_token', 'created_at']).execute();

    await db.schema
      .createTable('fill_requests')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('patient_token', 'text', (c) => c.notNull().references('patients.token'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('patient_payment_type', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text')
      .addColumn('shipping_method', 'text', (c) => c.notNull())
      .addColumn('replacement_order', 'text')
      .addColumn('check_in', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('order_token', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // The list: this customer's requests in creation order, optionally of one metadata value.
    await db.schema
      .createIndex('fill_requests_list')
      .on('fill_requests')
      .columns(['customer_id', 'environment', 'created_at', 'token'])
      .execute();
    await db.schema
      .createIndex('fill_requests_metadata')
      .on('fill_requests')
      .columns(['customer_id', 'environment', 'metadata', 'created_at', 'token'])
      .execute();
    await db.schema.createIndex('fill_requests_patient').on('fill_requests').columns(['patient_token', 'created_at']).execute();

    await db.schema
      .createTable('fill_request_medications')
      .addColumn('fill_request_token', 'text', (c) => c.notNull().references('fill_requests.token'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('prescription_token', 'text', (c) => c.notNull().references('prescriptions.token'))
      .addColumn('fill_number', 'integer', (c) => c.notNull())
      .addColumn('quantity', 'integer', (c) => c.notNull())
      .addColumn('days_supply', 'integer', (c) => c.notNull())
      .addColumn('refills_remaining', 'integer', (c) => c.notNull())
      .addColumn('quantity_remaining', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('fill_request_medications_pk', ['fill_request_token', 'position'])
      .execute();
    await db.schema
      .createIndex('fill_request_medications_prescription')
      .on('fill_request_medications')
      .column('prescription_token')
      .execute();

    await db.schema
      .createTable('copay_requests')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('fill_request_token', 'text', (c) => c.notNull().references('fill_requests.token'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('patient_token', 'text', (c) => c.notNull())
      .addColumn('prescription_token', 'text', (c) => c.notNull())
      .addColumn('insurance_token', 'text', (c) => c.notNull().references('insurances.token'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('copay_amount_cents', 'integer')
      .addColumn('days_supply', 'integer', (c) => c.notNull())
      .addColumn('quantity', 'integer', (c) => c.notNull())
      .addColumn('message', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('completed_at', 'text')
      .execute();
    await db.schema
      .createIndex('copay_requests_fill_request')
      .on('copay_requests')
      .columns(['fill_request_token', 'position'])
      .execute();

    await db.schema
      .createTable('orders')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('fill_request_token', 'text', (c) => c.notNull().references('fill_requests.token'))
      .addColumn('patient_token', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('date_filled', 'text', (c) => c.notNull())
      .addColumn('medications', 'text', (c) => c.notNull())
      .addColumn('otc_products', 'text', (c) => c.notNull())
      .addColumn('carrier', 'text')
      .addColumn('tracking_number', 'text')
      .addColumn('tracking_url', 'text')
      .addColumn('shipping_method', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // One order per fill request: a second dispense of the same request cannot commit.
    await db.schema.createIndex('orders_fill_request').unique().on('orders').column('fill_request_token').execute();
  },
};
