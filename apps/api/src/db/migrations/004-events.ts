import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

/** The events outbox: every event, its envelope, and its delivery state. */
export const events = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>) {
    const postgres = dialect === 'postgres';
    const table = db.schema
      .createTable('events')
      .addColumn('sequence', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('callback_type', 'text', (c) => c.notNull())
      .addColumn('status', 'text')
      .addColumn('request_id', 'text')
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('timestamp', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('delivery_status', 'text', (c) => c.notNull())
      .addColumn('delivery_status_code', 'integer')
      .addColumn('delivery_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_attempt_at', 'text')
      .addColumn('next_attempt_at', 'text')
      .addColumn('locked_until', 'text');
    await table.execute();
    await db.schema.createIndex('events_feed').on('events').columns(['customer_id', 'environment', 'sequence']).execute();
    await db.schema
      .createIndex('events_feed_by_type')
      .on('events')
      .columns(['customer_id', 'environment', 'callback_type', 'sequence'])
      .execute();
    await db.schema.createIndex('events_due').on('events').columns(['next_attempt_at']).execute();
  },
});
