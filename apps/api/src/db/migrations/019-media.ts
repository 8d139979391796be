import type { Kysely, Migration } from 'kysely';

/**
 * Media files (media/): one record per file, its bytes in the media store (a local folder
 * or an S3-compatible bucket), keyed by the file's id.
 */
export const media: Migration = {
  async up(db: Kysely<any>) {
    let table = db.schema
      .createTable('media')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'));
    for (const column of ['environment', 'status', 'created_at', 'updated_at']) table = table.addColumn(column, 'text', (c) => c.notNull());
    for (const column of ['name', 'title', 'content_type', 'check_result']) table = table.addColumn(column, 'text');
    await table.addColumn('size', 'integer').execute();
    await db.schema.createIndex('media_owner_created').on('media').columns(['customer_id', 'environment', 'created_at']).execute();
  },
};
