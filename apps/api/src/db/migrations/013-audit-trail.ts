import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../database.js';

const TABLES = ['audit_segments', 'audit_segment_records'];

/** The audit trail (audit/audit-tables.ts): two append-only tables whose rows no UPDATE may change. */
export const auditTrail = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('audit_segments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('first_at', 'text', (c) => c.notNull())
      .addColumn('last_at', 'text', (c) => c.notNull())
      .addColumn('event_count', 'integer', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_segments_by_time').on('audit_segments').columns(['last_at']).execute();
    await db.schema
      .createTable('audit_segment_records')
      .addColumn('segment_id', 'text', (c) => c.notNull())
      .addColumn('record_id', 'text', (c) => c.notNull())
      .addColumn('last_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_segment_records_by_record').on('audit_segment_records').columns(['record_id', 'last_at']).execute();
    await db.schema.createIndex('audit_segment_records_by_time').on('audit_segment_records').columns(['last_at']).execute();

    if (dialect === 'postgres') {
      await sql`create function audit_trail_append_only() returns trigger language plpgsql as $$
        begin raise exception 'the audit trail is append-only'; end $$`.execute(db);
      for (const table of TABLES) {
        await sql`create trigger ${sql.id(`${table}_append_only`)} before update on ${sql.table(table)}
          for each row execute function audit_trail_append_only()`.execute(db);
      }
    } else {
      for (const table of TABLES) {
        await sql`create trigger ${sql.id(`${table}_append_only`)} before update on ${sql.table(table)}
          begin select raise(abort, 'the audit trail is append-only'); end`.execute(db);
      }
    }
  },
});
