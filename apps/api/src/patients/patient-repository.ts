import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { PatientsTable } from '../db/tables.js';

export type PatientRow = PatientsTable;
export type PatientChanges = Partial<Omit<PatientsTable, 'token' | 'customer_id' | 'environment' | 'match_key'>>;

export interface PatientQuery {
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

export class PatientRepository {
  constructor(private readonly db: Db) {}

  /** Inserts unless a patient with the same identity exists; answers the token that stands. */
  async insertOrGetToken(row: PatientRow, trx: Db = this.db): Promise<string> {
    await trx
      .insertInto('patients')
      .values(row)
      .onConflict((oc) => oc.columns(['customer_id', 'environment', 'match_key']).doNothing())
      .execute();
    const existing = await trx
      .selectFrom('patients')
      .select('token')
      .where('customer_id', '=', row.customer_id)
      .where('environment', '=', row.environment)
      .where('match_key', '=', row.match_key)
      .executeTakeFirstOrThrow();
    return existing.token;
  }

  /** The patient with this token in any customer's records (ownership is the service's concern). */
  async findByToken(token: string): Promise<PatientRow | undefined> {
    return this.db.selectFrom('patients').selectAll().where('token', '=', token).executeTakeFirst();
  }

  async findFirst(owner: Owner, q: PatientQuery): Promise<PatientRow | undefined> {
    let query = this.db
      .selectFrom('patients')
      .selectAll()
      .where('customer_id', '=', owner.customerId)
      .where('environment', '=', owner.environment)
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

  async update(token: string, changes: PatientChanges, trx: Db = this.db): Promise<void> {
    await trx.updateTable('patients').set(changes).where('token', '=', token).execute();
  }
}
