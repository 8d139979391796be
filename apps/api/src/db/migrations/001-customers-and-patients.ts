import type { Kysely, Migration } from 'kysely';

/** Customers, their API keys, patients and the prescriptions listed per patient. */
export const customersAndPatients: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('customers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('key_hash', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('key_prefix', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .execute();

    let patients = db.schema
      .createTable('patients')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('match_key', 'text', (c) => c.notNull());
    for (const col of ['first_name', 'last_name', 'first_name_norm', 'last_name_norm', 'dob', 'gender', 'species']) {
      patients = patients.addColumn(col, 'text', (c) => c.notNull());
    }
    for (const col of [
      'guardian', 'prefix', 'suffix', 'ssn', 'ssn_serial', 'mbi', 'id_image', 'zip', 'company', 'street1',
      'street2', 'city', 'state', 'country', 'phone', 'email', 'language_preference',
      'viewed_notice_of_privacy_practices_date',
    ]) {
      patients = patients.addColumn(col, 'text');
    }
    await patients
      .addColumn('communications_opt_in', 'integer')
      .addColumn('viewed_notice_of_privacy_practices', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('patients_identity')
      .unique()
      .on('patients')
      .columns(['customer_id', 'environment', 'match_key'])
      .execute();
    await db.schema
      .createIndex('patients_find')
      .on('patients')
      .columns(['customer_id', 'environment', 'last_name_norm', 'first_name_norm', 'dob'])
      .execute();

    let prescriptions = db.schema
      .createTable('prescriptions')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('patient_token', 'text', (c) => c.notNull().references('patients.token'));
    for (const col of ['rx_number', 'status', 'medication_name', 'created_at']) {
      prescriptions = prescriptions.addColumn(col, 'text', (c) => c.notNull());
    }
    for (const col of [
      'medication_sig', 'medication_id', 'origin', 'prescribed_brand_name', 'prescribed_drug_strength',
      'prescribed_generic_name', 'prescribed_written_name', 'prescribed_quantity_unit', 'prescribed_ndc',
      'original_prescribed_ndc', 'prescriber', 'prescriber_npi', 'prescriber_order_number', 'date_written',
      'date_filled_utc', 'last_filled_date', 'expiration_date_utc', 'days_supply', 'current_rx_status_text',
    ]) {
      prescriptions = prescriptions.addColumn(col, 'text');
    }
    await prescriptions
      .addColumn('prescribed_quantity', 'integer')
      .addColumn('is_refill', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('number_of_refills_allowed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('refills_remaining', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('quantity_remaining', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex('prescriptions_patient')
      .on('prescriptions')
      .columns(['patient_token', 'created_at'])
      .execute();
  },
};
