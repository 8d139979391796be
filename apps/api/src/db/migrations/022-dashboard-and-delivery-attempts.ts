import type { Kysely, Migration } from 'kysely';

/**
 * The customer dashboard (`/dashboard`) and what it shows of deliveries:
 * - `dashboard_sessions`: one row per signed-in browser, found by the SHA-256 of its
 *   session id (the id itself is only in the cookie), for one customer and the environments
 *   whose keys were given, with its CSRF token and its idle and absolute expiry.
 * - `webhook_delivery_attempts`: one row per delivery attempt of an event (never the
 *   receiver's body), written with the event's outcome by the delivery workers.
 */
export const dashboardAndDeliveryAttempts: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('dashboard_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environments', 'text', (c) => c.notNull())
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('notice', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('absolute_expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('dashboard_sessions_expiry').on('dashboard_sessions').columns(['expires_at']).execute();

    await db.schema
      .createTable('webhook_delivery_attempts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('attempted_at', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error_kind', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .execute();
    // An event's attempts, newest first; and retention, oldest first.
    await db.schema.createIndex('webhook_delivery_attempts_event').on('webhook_delivery_attempts').columns(['event_id', 'attempted_at']).execute();
    await db.schema.createIndex('webhook_delivery_attempts_age').on('webhook_delivery_attempts').columns(['attempted_at']).execute();
  },
};
