import type { Environment } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { AuditSegmentRecordsTable, AuditSegmentsTable } from './audit-tables.js';

/** What an operator asks of the trail (`pnpm admin audit`); every filter is optional. */
export interface AuditQuery {
  customerId?: string;
  environment?: Environment;
  /** Events that named or answered this record id (found through the index of record ids). */
  recordId?: string;
  operation?: string;
  actorId?: string;
  action?: 'read' | 'write';
  /** ISO 8601 bounds on `at`: since inclusive, until exclusive. */
  since?: string;
  until?: string;
  /** Newest first, at most this many. */
  limit: number;
}

/** Rows per INSERT of record ids: well under either database's limit on bound parameters. */
const RECORDS_PER_INSERT = 1000;

/** SQL of the audit trail: append segments, read them back newest first, delete what retention let go. */
export class AuditRepository {
  constructor(private readonly db: Db) {}

  /** Appends a segment and its record ids (in the caller's transaction, so both land or neither). */
  async append(trx: Db, segment: AuditSegmentsTable, records: readonly AuditSegmentRecordsTable[]): Promise<void> {
    await trx.insertInto('audit_segments').values(segment).execute();
    for (let i = 0; i < records.length; i += RECORDS_PER_INSERT) {
      await trx.insertInto('audit_segment_records').values(records.slice(i, i + RECORDS_PER_INSERT)).execute();
    }
  }

  /** One page of the segments that may hold events the query asks for, newest first. */
  segments(query: AuditQuery, offset: number, pageSize: number): Promise<Pick<AuditSegmentsTable, 'events'>[]> {
    let select = this.db.selectFrom('audit_segments').select('events');
    if (query.recordId !== undefined) {
      const recordId = query.recordId;
      select = select.where('id', 'in', (db) => {
        let ids = db.selectFrom('audit_segment_records').select('segment_id').where('record_id', '=', recordId);
        if (query.since !== undefined) ids = ids.where('last_at', '>=', query.since);
        return ids;
      });
    }
    if (query.since !== undefined) select = select.where('last_at', '>=', query.since);
    if (query.until !== undefined) select = select.where('first_at', '<', query.until);
    return select.orderBy('last_at', 'desc').orderBy('id', 'desc').limit(pageSize).offset(offset).execute();
  }

  /**
   * Deletes the segments whose last event is before `cutoff`, and their record ids (which
   * carry the same time, so each table goes by its own index); answers how many events.
   * Retention runs hourly, so each run deletes what aged out since the last one.
   */
  async deleteBefore(trx: Db, cutoff: string): Promise<number> {
    const gone = await trx
      .selectFrom('audit_segments')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('event_count'), eb.lit(0)).as('events'))
      .where('last_at', '<', cutoff)
      .executeTakeFirstOrThrow();
    await trx.deleteFrom('audit_segment_records').where('last_at', '<', cutoff).execute();
    await trx.deleteFrom('audit_segments').where('last_at', '<', cutoff).execute();
    return Number(gone.events);
  }
}
