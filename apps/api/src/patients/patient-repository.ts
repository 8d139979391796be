import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import { insertUnlessConflict } from '../db/gathered-inserts.js';
import { rowByKey } from '../db/transactor.js';
import type { PatientsTable } from './patient-tables.js';

export type PatientRow = PatientsTable;
export type PatientChanges = Partial<Omit<PatientsTable, 'token' | 'customer_id' | 'environment' | 'match_key'>>;

interface PatientQuery {
  firstNameNorm: string;
  lastNameNorm: string;
  dob: string;
  gender?: string;
  guardian?: string;
  prefix?: string;
  suffix?: string;
  zip?: string;
  species?: string;
}

/**
 * The columns no two patients share: their owner and identity (`match_key`, patient-identity.ts),
 * after the names and date of birth it is computed from, so that one index serves the
 * identity and the searches by name (migration 024).
 */
const PATIENT_IDENTITY = ['customer_id', 'environment', 'last_name_norm', 'first_name_norm', 'dob', 'match_key'] as const;

export class PatientRepository {
  constructor(private readonly db: Db) {}

  /**
   * Inserts unless a patient with the same identity exists; answers the token that stands.
   * Only a conflict costs a second round trip. On PostgreSQL the creates of concurrent
   * requests share one statement (`insertUnlessConflict`).
   */
  async insertOrGetToken(owner: Owner, row: PatientRow, trx: Db = this.db): Promise<string> {
    if (await insertUnlessConflict(trx, 'patients', PATIENT_IDENTITY, 'token', row as never)) return row.token;
    const existing = await trx
      .selectFrom('patients')
      .select('token')
      .where(whereOwned(owner))
      .where('last_name_norm', '=', row.last_name_norm)
      .where('first_name_norm', '=', row.first_name_norm)
      .where('dob', '=', row.dob)
      .where('match_key', '=', row.match_key)
      .executeTakeFirstOrThrow();
    return existing.token;
  }

  /** The patient with this token in any customer's records (ownership is the service's concern). */
  async findByToken(token: string, trx: Db = this.db): Promise<PatientRow | undefined> {
    return rowByKey(trx, 'patients', 'token', token);
  }

  async findFirst(owner: Owner, q: PatientQuery): Promise<PatientRow | undefined> {
    let query = this.db
      .selectFrom('patients')
      .selectAll()
      .where(whereOwned(owner))
      .where('last_name_norm', '=', q.lastNameNorm)
      .where('first_name_norm', '=', q.firstNameNorm)
      .where('dob', '=', q.dob);
    if (q.gender) query = query.where('gender', '=', q.gender);
    if (q.guardian !== undefined) query = query.where('guardian', '=', q.guardian);
    if (q.prefix) query = query.where('prefix', '=', q.prefix);
    if (q.suffix) query = query.where('suffix', '=', q.suffix);
    if (q.zip) query = query.where('zip', '=', q.zip);
    if (q.species) query = query.where('species', '=', q.species);
    return query.orderBy('created_at').orderBy('token').limit(1).executeTakeFirst();
  }

  /**
   * Other patients of the owner who look like this one (same names, trimmed and in any
   * case, and date of birth) but whose other identity data differ: the duplicates
   * mismatched patient data caused.
   */
  async lookAlikes(owner: Owner, patient: PatientRow, trx: Db = this.db): Promise<string[]> {
    const rows = await trx
      .selectFrom('patients')
      .select('token')
      .where(whereOwned(owner))
      .where('last_name_norm', '=', patient.last_name_norm)
      .where('first_name_norm', '=', patient.first_name_norm)
      .where('dob', '=', patient.dob)
      .where('token', '!=', patient.token)
      .orderBy('created_at')
      .orderBy('token')
      .limit(100)
      .execute();
    return rows.map((r) => r.token);
  }

  async update(token: string, changes: PatientChanges, trx: Db = this.db): Promise<void> {
    await trx.updateTable('patients').set(changes).where('token', '=', token).execute();
  }
}
