import type { Kysely, Migration } from 'kysely';

/** Webhook endpoints: one per customer and environment, the secret stored encrypted. */
export const webhookEndpoints: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('secret_encrypted', 'text', (c) => c.notNull())
      .addColumn('secret_hint', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('webhook_endpoints_pk', ['customer_id', 'environment'])
      .execute();
  },
};
