import type { Db } from '../db/database.js';
import type { PrescriptionsTable } from '../db/tables.js';

export type PrescriptionRow = PrescriptionsTable;

export class PrescriptionRepository {
  constructor(private readonly db: Db) {}

  async insert(row: PrescriptionRow): Promise<void> {
    await this.db.insertInto('prescriptions').values(row).execute();
  }

  /** The prescription with this token in any customer's records (ownership is the service's concern). */
  async findByToken(token: string): Promise<PrescriptionRow | undefined> {
    return this.db.selectFrom('prescriptions').selectAll().where('token', '=', token).executeTakeFirst();
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
}
