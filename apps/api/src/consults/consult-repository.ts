import { sql } from 'kysely';
import type { Environment, Owner } from '../auth/principal.js';
import { updatedOneRow, type Db, type Dialect } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import { executeInserts, insertRows, rowByKey } from '../db/transactor.js';
import type { ConsultAppointmentsTable, ConsultsTable, ConsultStatus, ConsultTasksTable } from './consult-tables.js';

/** What the listing filters by (seed 4.7), already read. */
export interface ConsultFilters {
  program_id?: string;
  provider_name?: string;
  patient_name?: string;
  patient_token?: string;
  scheduled?: boolean;
  status?: ConsultStatus;
  bundled?: boolean;
  appointment_start_date?: string;
  appointment_end_date?: string;
}

export type ConsultSort = 'created_at' | 'updated_at' | 'appointment_start' | 'status';

/** A substring pattern for LIKE, its wildcards escaped (`\\`). */
function containing(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The consults' SQL. */
export class ConsultRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** The consult and its appointment: compiled once per shape, and on PostgreSQL one statement (executeInserts). */
  async insert(trx: Db, consult: ConsultsTable, appointment: ConsultAppointmentsTable | null): Promise<void> {
    await executeInserts(trx, [insertRows(trx, 'consults', [consult]), ...(appointment ? [insertRows(trx, 'consult_appointments', [appointment])] : [])]);
  }

  /** The consult of this id in any customer's records (ownership is the service's concern). */
  async find(id: string, trx: Db = this.db): Promise<ConsultsTable | undefined> {
    return rowByKey(trx, 'consults', 'id', id);
  }

  /**
   * Holds the provider's calendar for the rest of the transaction, so that checking a slot
   * is free and booking it cannot interleave with another booking of the same provider:
   * a transaction-scoped advisory lock on PostgreSQL; the embedded database runs one
   * writing transaction at a time already.
   */
  async lockProvider(trx: Db, environment: Environment, providerId: string): Promise<void> {
    if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`${environment}:${providerId}`}))`.execute(trx);
  }

  /** The live appointments of these providers that overlap the window. */
  async busy(environment: Environment, providerIds: readonly string[], start: string, end: string, trx: Db = this.db) {
    if (providerIds.length === 0) return [];
    return trx
      .selectFrom('consult_appointments')
      .select(['provider_id', 'start', 'end'])
      .where('environment', '=', environment)
      .where('provider_id', 'in', providerIds)
      .where('start', '<', end)
      .where('end', '>', start)
      .where('canceled_at', 'is', null)
      .execute();
  }

  /** Moves a consult on from one of `from`; false when it is no longer there. */
  async advance(trx: Db, id: string, from: readonly ConsultStatus[], changes: Partial<ConsultsTable>): Promise<boolean> {
    return updatedOneRow(await trx.updateTable('consults').set(changes).where('id', '=', id).where('status', 'in', from).executeTakeFirst());
  }

  async freeAppointment(trx: Db, consultId: string, at: string): Promise<void> {
    await trx.updateTable('consult_appointments').set({ canceled_at: at }).where('consult_id', '=', consultId).where('canceled_at', 'is', null).execute();
  }

  async insertTask(trx: Db, task: ConsultTasksTable): Promise<void> {
    await executeInserts(trx, [insertRows(trx, 'consult_tasks', [task])]);
  }

  /** Closes the consult's open tasks; answers them as they were. */
  async closeTasks(trx: Db, consultId: string, status: 'completed' | 'canceled', at: string): Promise<ConsultTasksTable[]> {
    const open = await trx.selectFrom('consult_tasks').selectAll().where('consult_id', '=', consultId).where('status', '=', 'open').execute();
    if (open.length) await trx.updateTable('consult_tasks').set({ status, updated_at: at }).where('consult_id', '=', consultId).where('status', '=', 'open').execute();
    return open;
  }

  /** One window of the owner's consults, sorted (ties by id), `offset` rows in. */
  async list(owner: Owner, filters: ConsultFilters, sort: ConsultSort, direction: 'asc' | 'desc', offset: number, limit: number): Promise<ConsultsTable[]> {
    let query = this.db.selectFrom('consults').selectAll('consults').where(whereOwned(owner, 'consults'));
    if (filters.program_id) query = query.where('consults.program_id', '=', filters.program_id.toLowerCase());
    if (filters.patient_token) query = query.where('consults.patient_token', '=', filters.patient_token);
    if (filters.status) query = query.where('consults.status', '=', filters.status);
    if (filters.bundled !== undefined) query = query.where('consults.bundled', '=', filters.bundled ? 1 : 0);
    if (filters.scheduled !== undefined) query = query.where('consults.appointment_start', filters.scheduled ? 'is not' : 'is', null);
    if (filters.appointment_start_date) query = query.where('consults.appointment_start', '>=', filters.appointment_start_date);
    if (filters.appointment_end_date) query = query.where('consults.appointment_start', '<', filters.appointment_end_date);
    if (filters.provider_name) query = query.where(sql<boolean>`lower(consults.provider_name) like ${containing(filters.provider_name)} escape '\\'`);
    if (filters.patient_name) {
      const pattern = containing(filters.patient_name);
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('patients')
            .select('patients.token')
            .whereRef('patients.token', '=', 'consults.patient_token')
            .where(sql<boolean>`lower(patients.first_name || ' ' || patients.last_name) like ${pattern} escape '\\'`),
        ),
      );
    }
    // A consult with no appointment sorts as the latest on both databases (PostgreSQL's order for nulls).
    if (sort === 'appointment_start') query = query.orderBy(sql`consults.appointment_start is null`, direction);
    // Statuses sort by code point on both databases, whatever PostgreSQL's collation.
    const key = sort === 'status' && this.dialect === 'postgres' ? sql`consults.status collate "C"` : sql.ref(`consults.${sort}`);
    return query.orderBy(key, direction).orderBy('consults.id', direction).offset(offset).limit(limit).execute();
  }
}
