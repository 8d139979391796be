import type { Kysely, Migration } from 'kysely';

/** The sandbox's simulated pharmacy: one row per lifecycle it carries out (sandbox/sandbox-tables.ts). */
export const sandboxSteps: Migration = {
  async up(db: Kysely<any>) {
    let table = db.schema
      .createTable('sandbox_steps')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull());
    for (const col of ['subject', 'subject_token', 'run_at', 'state', 'created_at', 'updated_at']) {
      table = table.addColumn(col, 'text', (c) => c.notNull());
    }
    await table
      .addColumn('step', 'integer', (c) => c.notNull())
      .addColumn('locked_until', 'text')
      .addColumn('last_error', 'text')
      .execute();
    // Workers look for due rows of scheduled lifecycles, earliest first.
    await db.schema.createIndex('sandbox_steps_due').on('sandbox_steps').columns(['state', 'run_at']).execute();
    await db.schema.createIndex('sandbox_steps_subject').on('sandbox_steps').columns(['subject', 'subject_token']).execute();
  },
};
