import type { Compilable } from 'kysely';
import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import { insertRows } from '../db/transactor.js';
import type { InsurancesTable } from './insurance-tables.js';

export type InsuranceRow = InsurancesTable;

export class InsuranceRepository {
  constructor(private readonly db: Db) {}

  async insertMany(rows: InsuranceRow[], trx: Db): Promise<void> {
    if (rows.length) await trx.insertInto('insurances').values(rows).execute();
  }

  /** The insert of these rows (none when there are none), for `executeInserts`. */
  inserts(rows: InsuranceRow[], trx: Db): Compilable[] {
    return rows.length ? [insertRows(trx, 'insurances', rows)] : [];
  }

  /** The caller's insurance record with this token, if any. */
  async find(owner: Owner, token: string): Promise<InsuranceRow | undefined> {
    return this.db.selectFrom('insurances').selectAll().where('token', '=', token).where(whereOwned(owner)).executeTakeFirst();
  }

  /** Which of these tokens name insurance records of this patient (one query for all). */
  async tokensOfPatient(patientToken: string, tokens: string[]): Promise<Set<string>> {
    if (!tokens.length) return new Set();
    const rows = await this.db
      .selectFrom('insurances')
      .select('token')
      .where('token', 'in', tokens)
      .where('patient_token', '=', patientToken)
      .execute();
    return new Set(rows.map((r) => r.token));
  }
}
