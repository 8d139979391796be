import type { Kysely, Migration } from 'kysely';

/** Idempotency keys (idempotency/idempotency-tables.ts): one row per caller and key, kept 24 hours. */
export const idempotencyKeys: Migration = {
  async up(db: Kysely<any>) {
    let table = db.schema.createTable('idempotency_keys');
    for (const column of ['scope', 'key', 'operation_id', 'fingerprint', 'state', 'request_id', 'created_at', 'expires_at']) {
      table = table.addColumn(column, 'text', (c) => c.notNull());
    }
    await table
      .addColumn('locked_until', 'text')
      .addColumn('response_status', 'integer')
      .addColumn('response_body', 'text')
      .addColumn('response_type', 'text')
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'] as never)
      .execute();
    // Expired keys are pruned in batches, oldest first.
    await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').columns(['expires_at']).execute();
  },
};
