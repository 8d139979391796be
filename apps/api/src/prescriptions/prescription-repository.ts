import { updatedOneRow, type Db } from '../db/database.js';
import { assertedWrite, isPostgres, reuseCompiled, rowByKey, rowsByKeys } from '../db/transactor.js';
import type { Fill } from './fillable.js';
import type { PrescriptionsTable } from './prescription-tables.js';

export type PrescriptionRow = PrescriptionsTable;

export class PrescriptionRepository {
  constructor(private readonly db: Db) {}

  async insert(row: PrescriptionRow, trx: Db): Promise<void> {
    await trx.insertInto('prescriptions').values(row).execute();
  }

  /** The prescription with this token in any customer's records (ownership is the service's concern). */
  async findByToken(token: string): Promise<PrescriptionRow | undefined> {
    return rowByKey(this.db, 'prescriptions', 'token', token);
  }

  /** Prescriptions by token, in one query, in any customer's records (ownership is the caller's concern). */
  async findMany(tokens: readonly string[], trx: Db = this.db): Promise<PrescriptionRow[]> {
    return rowsByKeys(trx, 'prescriptions', 'token', tokens);
  }

  /**
   * A prescription read again to fill it after a concurrent fill changed it: on PostgreSQL
   * with its row locked (`for update`) until the transaction ends, so the fill that follows
   * cannot find it changed once more; on the embedded database the transaction already holds
   * the only write lock.
   */
  async lockForFill(token: string, trx: Db): Promise<PrescriptionRow | undefined> {
    const read = trx.selectFrom('prescriptions').selectAll().where('token', '=', token);
    return isPostgres(trx) ? read.forUpdate().executeTakeFirst() : read.executeTakeFirst();
  }

  /** A patient's prescriptions, newest first. */
  async listForPatient(patientToken: string): Promise<PrescriptionRow[]> {
    return this.db
      .selectFrom('prescriptions')
      .selectAll()
      .where('patient_token', '=', patientToken)
      .orderBy('created_at', 'desc')
      .orderBy('token')
      .execute();
  }

  /**
   * Records a fill on a prescription only if it still holds what `seen` held (compare and
   * set): of two concurrent fills of the last refill only one matches, the other updates
   * nothing and answers false.
   */
  async applyFill(seen: PrescriptionRow, fill: Fill, trx: Db): Promise<boolean> {
    const parameters = [fill.refills_remaining, fill.quantity_remaining, fill.date_filled_utc, fill.last_filled_date, seen.token, 'active', seen.quantity_remaining, seen.refills_remaining];
    if (seen.date_filled_utc !== null) parameters.push(seen.date_filled_utc);
    const query = reuseCompiled(trx, `prescriptions.applyFill:${seen.date_filled_utc === null}`, parameters, () => this.applyFillQuery(seen, fill, trx));
    // In an optimistic transaction it goes out with the unit's inserts and commit (assertedWrite).
    const result = await trx.executeQuery(assertedWrite(query));
    return updatedOneRow({ numUpdatedRows: result.numAffectedRows ?? 0n });
  }

  private applyFillQuery(seen: PrescriptionRow, fill: Fill, trx: Db) {
    return trx
      .updateTable('prescriptions')
      .set({
        refills_remaining: fill.refills_remaining,
        quantity_remaining: fill.quantity_remaining,
        date_filled_utc: fill.date_filled_utc,
        last_filled_date: fill.last_filled_date,
      })
      .where('token', '=', seen.token)
      .where('status', '=', 'active')
      .where('quantity_remaining', '=', seen.quantity_remaining)
      .where('refills_remaining', '=', seen.refills_remaining)
      .where((eb) =>
        seen.date_filled_utc === null ? eb('date_filled_utc', 'is', null) : eb('date_filled_utc', '=', seen.date_filled_utc),
      );
  }
}
