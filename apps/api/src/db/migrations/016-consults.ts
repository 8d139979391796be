import type { Kysely, Migration } from 'kysely';

/**
 * Consults and schedules: the care team of each environment (programs, questionnaires,
 * providers and their hours: one JSON document per environment, replaced whole by an
 * import), the consults, the appointments that book providers' time (a provider's slot
 * serves one consult, whichever tenant's) and the tasks a consult creates.
 */
export const consults: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('care_teams')
      .addColumn('environment', 'text', (c) => c.primaryKey())
      .addColumn('care_team', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('imported_at', 'text', (c) => c.notNull())
      .execute();

    let table = db.schema
      .createTable('consults')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'));
    for (const column of ['environment', 'status', 'program_id', 'program_name', 'questionnaire_id', 'patient_token', 'state', 'created_at', 'updated_at']) {
      table = table.addColumn(column, 'text', (c) => c.notNull());
    }
    for (const column of ['provider_id', 'provider', 'provider_name', 'metadata', 'payment_type', 'notes_to_patient', 'appointment_start', 'appointment_end', 'completed_at']) {
      table = table.addColumn(column, 'text');
    }
    await table.addColumn('bundled', 'integer', (c) => c.notNull()).addColumn('is_video_consult', 'integer', (c) => c.notNull()).execute();
    await db.schema.createIndex('consults_owner_created').on('consults').columns(['customer_id', 'environment', 'created_at', 'id']).execute();

    await db.schema
      .createTable('consult_appointments')
      .addColumn('consult_id', 'text', (c) => c.primaryKey().references('consults.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('provider_id', 'text', (c) => c.notNull())
      .addColumn('start', 'text', (c) => c.notNull())
      .addColumn('end', 'text', (c) => c.notNull())
      .addColumn('canceled_at', 'text')
      .execute();
    // The schedule reads a provider's appointments in a window.
    await db.schema.createIndex('consult_appointments_provider').on('consult_appointments').columns(['environment', 'provider_id', 'start']).execute();

    await db.schema
      .createTable('consult_tasks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('consult_id', 'text', (c) => c.notNull().references('consults.id'))
      .addColumn('task_type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('consult_tasks_consult').on('consult_tasks').column('consult_id').execute();
  },
};
