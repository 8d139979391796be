import type { Kysely, Migration } from 'kysely';

/**
 * Webhook endpoints can be disabled. An endpoint whose delivery attempts keep failing is
 * disabled (`status`, `disabled_at`, and `disabled_reason`, the notice its read shows) until
 * the customer or an operator enables it again; `consecutive_failures` and `failing_since`
 * (the first failed attempt after the last success) track how long its attempts have failed.
 */
export const webhookEndpointStatus: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('webhook_endpoints').addColumn('status', 'text', (c) => c.notNull().defaultTo('enabled')).execute();
    await db.schema.alterTable('webhook_endpoints').addColumn('disabled_at', 'text').execute();
    await db.schema.alterTable('webhook_endpoints').addColumn('disabled_reason', 'text').execute();
    await db.schema.alterTable('webhook_endpoints').addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('webhook_endpoints').addColumn('failing_since', 'text').execute();
  },
};
