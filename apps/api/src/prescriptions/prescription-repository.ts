import type { Db } from '../db/database.js';
import type { PrescriptionsTable } from '../db/tables.js';

export type PrescriptionRow = PrescriptionsTable;

export class PrescriptionRepository {
  constructor(private readonly db: Db) {}

  async insert(row: PrescriptionRow): Promise<void> {
    await this.db.insertInto('prescriptions').values(row).execute();
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
