import type { Owner } from '../auth/principal.js';
import { updatedOneRow, type Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import { rowByKey } from '../db/transactor.js';
import type { AutoRefillRow, AutoRefillsTable } from './auto-refill-tables.js';
import { sql, type Insertable } from 'kysely';

/** SQL of auto-refill subscriptions. */
export class AutoRefillRepository {
  constructor(private readonly db: Db) {}

  /**
   * Stores a new active subscription; answers its `auto_refill_id`, or undefined when the
   * prescription has an active one already (the unique index decides between concurrent ones).
   */
  async insertActive(row: Insertable<AutoRefillsTable>, trx: Db): Promise<number | undefined> {
    const inserted = await trx
      .insertInto('auto_refills')
      .values(row)
      // The conflict target repeats the partial index's predicate as a literal (SQLite matches it by its text).
      .onConflict((oc) => oc.column('prescription_token').where('status', '=', sql.lit('active')).doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted && Number(inserted.id);
  }

  async findById(id: number, trx: Db = this.db): Promise<AutoRefillRow | undefined> {
    return rowByKey(trx, 'auto_refills', 'id', id);
  }

  /** The prescription's subscription: the active one, else the latest ended one. */
  async findForPrescription(prescriptionToken: string, trx: Db = this.db): Promise<AutoRefillRow | undefined> {
    return trx
      .selectFrom('auto_refills')
      .selectAll()
      .where('prescription_token', '=', prescriptionToken)
      .orderBy((eb) => eb.case().when('status', '=', 'active').then(0).else(1).end())
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  /** One page of the owner's subscriptions (of one patient, when given), earliest created first. */
  async page(owner: Owner, patientToken: string | undefined, after: { created_at: string; id: number } | undefined, limit: number): Promise<AutoRefillRow[]> {
    let query = this.db.selectFrom('auto_refills').selectAll().where(whereOwned(owner));
    if (patientToken !== undefined) query = query.where('patient_token', '=', patientToken);
    if (after) query = query.where((eb) => eb.or([eb('created_at', '>', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)])]));
    return query.orderBy('created_at').orderBy('id').limit(limit).execute();
  }

  async count(owner: Owner, patientToken: string | undefined): Promise<number> {
    let query = this.db.selectFrom('auto_refills').select((eb) => eb.fn.countAll<number | string>().as('n')).where(whereOwned(owner));
    if (patientToken !== undefined) query = query.where('patient_token', '=', patientToken);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }

  /** Ends an active subscription; false when it was not active. */
  async end(id: number, reason: string, at: string, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('auto_refills')
      .set({ status: 'canceled', cancel_reason: reason, canceled_at: at, updated_at: at })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  /** Records the refill of `cycle` as submitted. */
  async recordRefill(id: number, cycle: number, fillRequestToken: string, at: string, trx: Db): Promise<void> {
    await trx.updateTable('auto_refills').set({ cycle, last_fill_request_token: fillRequestToken, updated_at: at }).where('id', '=', id).execute();
  }
}
