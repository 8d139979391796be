import type { Kysely, Migration } from 'kysely';

/**
 * Prescription details of seed 2.3, prescribers, transfer requests (with their medications
 * and messages) and direct transfers.
 */
export const transfers: Migration = {
  async up(db: Kysely<any>) {
    // The embedded database adds one column per ALTER TABLE statement.
    for (const col of [
      'notes', 'formulary_ndc', 'prescriber_token', 'prescriber_address_name', 'prescriber_address_company',
      'prescriber_address_street1', 'prescriber_address_street2', 'prescriber_address_city',
      'prescriber_address_state', 'prescriber_address_zip', 'prescriber_address_country',
      'prescriber_address_phone', 'prescriber_address_email',
    ]) {
      await db.schema.alterTable('prescriptions').addColumn(col, 'text').execute();
    }
    // ICD codes are JSON arrays of strings.
    for (const col of ['icd10_codes', 'icd9_codes']) {
      await db.schema.alterTable('prescriptions').addColumn(col, 'text', (c) => c.notNull().defaultTo('[]')).execute();
    }
    await db.schema.alterTable('prescriptions').addColumn('is_daw', 'integer').execute();
    await db.schema.alterTable('prescriptions').addColumn('dea_schedule', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('prescriptions').addColumn('on_formulary', 'integer', (c) => c.notNull().defaultTo(0)).execute();

    let prescribers = db.schema
      .createTable('prescribers')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull());
    for (const col of [
      'npi', 'first_name', 'last_name', 'address_name', 'address_street1', 'address_city', 'address_state',
      'address_zip', 'address_country', 'address_phone', 'address_email', 'phone', 'created_at', 'updated_at',
    ]) {
      prescribers = prescribers.addColumn(col, 'text', (c) => c.notNull());
    }
    for (const col of ['dea_number', 'address_company', 'address_street2', 'fax']) {
      prescribers = prescribers.addColumn(col, 'text');
    }
    await prescribers.execute();
    // One prescriber record per NPI per customer and environment.
    await db.schema
      .createIndex('prescribers_npi')
      .unique()
      .on('prescribers')
      .columns(['customer_id', 'environment', 'npi'])
      .execute();

    let transferRequests = db.schema
      .createTable('transfer_requests')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('patient_token', 'text', (c) => c.notNull().references('patients.token'));
    for (const col of ['status', 'created_at', 'updated_at']) {
      transferRequests = transferRequests.addColumn(col, 'text', (c) => c.notNull());
    }
    for (const col of [
      'pharmacy_name', 'pharmacy_phone', 'pharmacy_fax', 'prescriber_name', 'prescriber_phone', 'prescriber_fax',
      'notes', 'metadata', 'cancel_reason', 'cancel_reason_other', 'completed_at',
    ]) {
      transferRequests = transferRequests.addColumn(col, 'text');
    }
    await transferRequests.addColumn('all_medications', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema
      .createIndex('transfer_requests_list')
      .on('transfer_requests')
      .columns(['customer_id', 'environment', 'created_at', 'token'])
      .execute();
    await db.schema.createIndex('transfer_requests_patient').on('transfer_requests').column('patient_token').execute();
    await db.schema.createIndex('transfer_requests_status').on('transfer_requests').columns(['status', 'created_at']).execute();

    let medications = db.schema
      .createTable('transfer_medications')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('transfer_token', 'text', (c) => c.notNull().references('transfer_requests.token'))
      .addColumn('position', 'integer', (c) => c.notNull());
    for (const col of ['medication_name', 'status', 'created_at', 'updated_at']) {
      medications = medications.addColumn(col, 'text', (c) => c.notNull());
    }
    for (const col of ['rejection_reason', 'rejection_reason_other', 'source_last_filled_date', 'source_refills_filled']) {
      medications = medications.addColumn(col, 'text');
    }
    await medications
      .addColumn('prescription_token', 'text', (c) => c.references('prescriptions.token'))
      .execute();
    await db.schema
      .createIndex('transfer_medications_order')
      .unique()
      .on('transfer_medications')
      .columns(['transfer_token', 'position'])
      .execute();
    await db.schema
      .createIndex('transfer_medications_prescription')
      .on('transfer_medications')
      .column('prescription_token')
      .execute();

    await db.schema
      .createTable('transfer_messages')
      .addColumn('transfer_token', 'text', (c) => c.notNull().references('transfer_requests.token'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('transfer_messages_pk', ['transfer_token', 'position'])
      .execute();

    let directTransfers = db.schema
      .createTable('direct_transfers')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('patient_token', 'text', (c) => c.notNull().references('patients.token'))
      .addColumn('prescriber_token', 'text', (c) => c.notNull().references('prescribers.token'));
    // The submitted objects are kept as sent (JSON), so the read repeats them unchanged.
    for (const col of ['status', 'prescriber', 'transfer_from', 'transfer_to', 'prescription', 'created_at', 'updated_at']) {
      directTransfers = directTransfers.addColumn(col, 'text', (c) => c.notNull());
    }
    await directTransfers
      .addColumn('prescription_token', 'text', (c) => c.references('prescriptions.token'))
      .addColumn('rejection_message', 'text')
      .execute();
    await db.schema.createIndex('direct_transfers_patient').on('direct_transfers').column('patient_token').execute();
    await db.schema.createIndex('direct_transfers_prescriber').on('direct_transfers').column('prescriber_token').execute();
    await db.schema.createIndex('direct_transfers_status').on('direct_transfers').columns(['status', 'created_at']).execute();
    await db.schema.createIndex('prescriptions_prescriber').on('prescriptions').column('prescriber_token').execute();
  },
};
